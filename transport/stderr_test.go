package transport

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
)

// dbhubWithoutDSN is what dbhub 0.x prints to stderr when started without
// a database: the line that says why, then a sample configuration.
const dbhubWithoutDSN = `
ERROR: Database connection configuration is required.
Please provide configuration in one of these ways (in order of priority):

1. Use demo mode: --demo (uses in-memory SQLite with sample employee database)
2. TOML config file: --config=path/to/dbhub.toml or ./dbhub.toml
3. Command line argument: --dsn="your-connection-string"
4. Environment variable: export DSN="your-connection-string"
5. .env file: DSN=your-connection-string

Example DSN formats:
  - postgres: postgres://user:password@localhost:5432/dbname?sslmode=disable
  - mysql: mysql://user:password@localhost:3306/dbname
  - mariadb: mariadb://user:password@localhost:3306/dbname
  - sqlserver: sqlserver://user:password@localhost:1433/dbname
  - sqlite: sqlite:///path/to/database.db

Example TOML config (dbhub.toml):
  [[sources]]
  id = "my_db"
  dsn = "postgres://user:pass@localhost:5432/dbname"

See documentation for more details on configuring database connections.
`

// The tail keeps the last lines in its ring and the first line that reads
// as an error beside them, once the ring has moved past it.
func TestStderrTailKeepsTheFirstErrorLine(t *testing.T) {
	cases := []struct {
		name   string
		ring   int
		output string
		want   []string
	}{
		{"no error line", 2, "a\nb\nc\n", []string{"b", "c"}},
		{"error line still in the ring", 3, "a\nfatal: x\nb\n", []string{"a", "fatal: x", "b"}},
		{"error line gone from the ring", 2, "a\nPanic: boom\nb\nc\nd\n", []string{"Panic: boom", "c", "d"}},
		{"only the first error line", 1, "error one\nerror two\nz\n", []string{"error one", "z"}},
		{"no ring, no lines", -1, "error\n", nil},
		{"dbhub without --dsn", 5, dbhubWithoutDSN, []string{
			"ERROR: Database connection configuration is required.",
			"  [[sources]]", `  id = "my_db"`, `  dsn = "postgres://user:pass@localhost:5432/dbname"`, "",
			"See documentation for more details on configuring database connections."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tail := newStderrTail(tc.ring, zap.NewNop())
			_, _ = tail.Write([]byte(tc.output))
			assert.Equal(t, tc.want, tail.Lines())
		})
	}
}
