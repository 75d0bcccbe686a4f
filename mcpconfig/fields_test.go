package mcpconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The JSON forms take Codex's new fields under camelCase names.
func TestConfigJSONRequiredParallelApproval(t *testing.T) {
	cfg, err := parse([]byte(servers(`
"a":{"command":"x","required":true,"parallelToolCalls":false,"approval":"writes",
     "tools":{"read":{"approval":"auto"},"rm":{"approval":"approve","other":1},"plain":{},"nul":null}},
"b":{"command":"y","required":false,"parallelToolCalls":true,"approval":null,"tools":null},
"c":{"command":"z"},
"t":{"command":"z","trust":true},
"ta":{"command":"z","trust":true,"approval":"approve"}`)), "", testVars)
	require.NoError(t, err)
	a := cfg.Servers["a"]
	assert.True(t, a.Required)
	assert.Equal(t, boolPtr(false), a.ParallelToolCalls)
	assert.Equal(t, ApprovalWrites, a.Approval)
	assert.Equal(t, map[string]Tool{"read": {Approval: ApprovalAuto}, "rm": {Approval: ApprovalApprove}, "plain": {}, "nul": {}}, a.Tools)

	b := cfg.Servers["b"]
	assert.False(t, b.Required)
	assert.Equal(t, boolPtr(true), b.ParallelToolCalls)
	assert.Equal(t, ApprovalUnset, b.Approval)
	assert.Nil(t, b.Tools)

	c := cfg.Servers["c"]
	assert.Nil(t, c.ParallelToolCalls, "absent")
	assert.Equal(t, ApprovalUnset, c.Approval)
	assert.Nil(t, c.Tools)

	// Gemini CLI's trust is auto, unless the entry gives a mode.
	assert.Equal(t, ApprovalAuto, cfg.Servers["t"].Approval)
	assert.Equal(t, ApprovalApprove, cfg.Servers["ta"].Approval)
	assert.True(t, cfg.Servers["ta"].Trust)
}

func TestConfigApprovalModeValid(t *testing.T) {
	for _, m := range []ApprovalMode{ApprovalUnset, ApprovalAuto, ApprovalPrompt, ApprovalWrites, ApprovalApprove} {
		assert.True(t, m.valid(), m)
	}
	for _, m := range []ApprovalMode{"Auto", "never", "on-request", " auto"} {
		assert.False(t, m.valid(), m)
	}
}

func TestConfigJSONNewFieldErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"required not a bool", servers(`"a":{"command":"x","required":"yes"}`), `1:46: server "a": required: must be true or false`},
		{"parallel not a bool", servers(`"a":{"command":"x","parallelToolCalls":1}`), `1:55: server "a": parallelToolCalls: must be true or false`},
		{"approval unknown", servers(`"a":{"command":"x","approval":"never"}`),
			`1:46: server "a": approval: must be "auto", "prompt", "writes" or "approve"`},
		{"approval empty", servers(`"a":{"command":"x","approval":""}`),
			`1:46: server "a": approval: must be "auto", "prompt", "writes" or "approve"`},
		{"approval not a string", servers(`"a":{"command":"x","approval":true}`),
			`1:46: server "a": approval: must be "auto", "prompt", "writes" or "approve"`},
		{"approval twice", servers(`"a":{"command":"x","approval":"auto","approval":"prompt"}`), `1:53: server "a": approval: duplicate field`},
		{"tools object with a bad entry", servers(`"a":{"command":"x","tools":{"t":1}}`), `1:48: server "a": tools.t: must be an object`},
		{"tool not an object", servers(`"a":{"command":"x","tools":{"t":"auto"}}`), `1:48: server "a": tools.t: must be an object`},
		{"empty tool name", servers(`"a":{"command":"x","tools":{"":{}}}`), `1:44: server "a": tools.: empty tool name`},
		{"tool twice", servers(`"a":{"command":"x","tools":{"t":{},"t":{}}}`), `1:51: server "a": tools.t: duplicate tool name`},
		{"tool approval unknown", servers(`"a":{"command":"x","tools":{"t":{"approval":"ask"}}}`),
			`1:60: server "a": tools.t.approval: must be "auto", "prompt", "writes" or "approve"`},
		{"tool approval twice", servers(`"a":{"command":"x","tools":{"t":{"approval":"auto","approval":"auto"}}}`),
			`1:67: server "a": tools.t.approval: duplicate field`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parse([]byte(c.data), "", testVars)
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Equal(t, c.want, err.Error())
		})
	}
}
