package transport

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// On Linux the stderr of every child is read by one goroutine of the
// process, waiting in epoll on all of them, instead of one goroutine per
// child blocked in a read: an idle connection holds no goroutine and no
// read buffer for its stderr. That goroutine runs while some child's
// stderr is watched, and ends with the last watch. Where epoll cannot be
// had, a child's stderr gets a goroutine of its own, as elsewhere.
//
// The goroutine waits in the runtime's poller, not in epoll_wait: the
// epoll instance is itself a file the runtime polls (readable when one of
// its children's stderr is), and epoll_wait is only asked what is ready,
// never to wait. A goroutine blocked in a system call holds its P while it
// enters it, and go1.26 can stop the world around such a goroutine and
// then wait up to 60 s for it (docs/interoperability.md); this one never
// blocks in one.

// stderrPoller is the process's one reader of children's stderr.
type stderrPoller struct {
	mu      sync.Mutex
	made    bool
	epfd    int             // -1 if epoll is not to be had
	raw     syscall.RawConn // epfd's, polled by the runtime; nil if it cannot be
	wake    *os.File        // an eventfd, written when the last watch ends
	watched map[int32]*stdioConn
	lastID  int32
	running bool
}

var stderrs stderrPoller

// wakeID is the epoll data of the wake eventfd; watches count from 1.
const wakeID = 0

// watchStderr starts reading c's stderr into its tail; c.stderrDone is
// closed when it ends, or when [unwatchStderr] gives up on it.
func watchStderr(c *stdioConn) {
	p := &stderrs
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ready() || !p.add(c) {
		go c.readStderr()
		return
	}
	if !p.running {
		p.running = true
		go p.run()
	}
}

// unwatchStderr stops reading c's stderr, if the poller still reads it:
// c.stderrDone is closed then. The caller closes c.stderr after it.
func unwatchStderr(c *stdioConn) {
	if c.stderrID == 0 {
		return // read by a goroutine of its own
	}
	p := &stderrs
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.watched[c.stderrID] == c {
		p.drop(c)
	}
}

// ready makes the epoll instance on first use; the caller holds mu.
func (p *stderrPoller) ready() bool {
	if p.made {
		return p.epfd >= 0
	}
	p.made, p.epfd, p.watched = true, -1, map[int32]*stdioConn{}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return false
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		_ = unix.Close(epfd)
		return false
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeID}
	if unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &ev) != nil {
		_ = unix.Close(epfd)
		_ = unix.Close(efd)
		return false
	}
	p.epfd, p.wake = epfd, os.NewFile(uintptr(efd), "stderr-wake")
	if unix.SetNonblock(epfd, true) == nil {
		// The file is never closed: it keeps epfd, which the process keeps.
		if raw, err := os.NewFile(uintptr(epfd), "stderr-epoll").SyscallConn(); err == nil {
			p.raw = raw
		}
	}
	return true
}

// add registers c's stderr; the caller holds mu.
func (p *stderrPoller) add(c *stdioConn) bool {
	raw, err := c.stderr.SyscallConn()
	if err != nil {
		return false
	}
	p.lastID++
	if p.lastID <= wakeID {
		p.lastID = wakeID + 1
	}
	id := p.lastID
	var addErr error
	err = raw.Control(func(fd uintptr) {
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: id}
		addErr = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)
		c.stderrFd = int(fd)
	})
	if err != nil || addErr != nil {
		return false
	}
	c.stderrID = id
	p.watched[id] = c
	return true
}

// drop ends the watch of c, before its stderr is closed (so that its
// descriptor names no other file yet); the caller holds mu.
func (p *stderrPoller) drop(c *stdioConn) {
	_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, c.stderrFd, nil)
	delete(p.watched, c.stderrID)
	close(c.stderrDone)
	if len(p.watched) == 0 {
		_, _ = p.wake.Write([]byte{1, 0, 0, 0, 0, 0, 0, 0}) // the run loop sees there is nothing left
	}
}

// run reads every watched stderr that has something to say, until none is
// watched.
func (p *stderrPoller) run() {
	var events [16]unix.EpollEvent
	buf := make([]byte, 4096)
	for {
		n := p.wait(events[:])
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd == wakeID {
				var b [8]byte
				_, _ = p.wake.Read(b[:])
				continue
			}
			p.mu.Lock()
			c := p.watched[ev.Fd]
			p.mu.Unlock()
			if c != nil && !c.readStderrOnce(buf) {
				p.mu.Lock()
				if p.watched[ev.Fd] == c {
					p.drop(c)
				}
				p.mu.Unlock()
			}
		}
		p.mu.Lock()
		if len(p.watched) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// wait returns the number of events ready, waiting for one in the
// runtime's poller; without it (the epoll instance is not polled), in
// epoll_wait. 0 on an error, which the caller's loop retries.
func (p *stderrPoller) wait(events []unix.EpollEvent) int {
	var n int
	var err error
	if p.raw != nil {
		rerr := p.raw.Read(func(fd uintptr) bool {
			n, err = unix.EpollWait(int(fd), events, 0)
			return n > 0 || (err != nil && !errors.Is(err, unix.EINTR))
		})
		if rerr == nil {
			return max(n, 0)
		}
	}
	n, err = unix.EpollWait(p.epfd, events, -1)
	if err != nil {
		return 0
	}
	return n
}

// readStderrOnce reads what c's stderr holds into its tail, without
// waiting; false means it ended.
func (c *stdioConn) readStderrOnce(buf []byte) bool {
	raw, err := c.stderr.SyscallConn()
	if err != nil {
		return false
	}
	var n int
	var rerr error
	if err := raw.Read(func(fd uintptr) bool {
		n, rerr = unix.Read(int(fd), buf)
		return true
	}); err != nil {
		return false
	}
	switch {
	case n > 0:
		_, _ = c.tail.Write(buf[:n])
		return true
	case errors.Is(rerr, unix.EAGAIN) || errors.Is(rerr, unix.EINTR):
		return true
	}
	return false
}
