package anthropicmcp_test

import (
	"context"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"

	anthropicmcp "github.com/cuca-go/mcpconnector/adapters/anthropic"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// ask is docs/adapters.md's example, word for word (TestTheDocsExampleRuns
// checks both).
func ask(ctx context.Context, box *toolbox.Toolbox, prompt string) (string, error) {
	ts, client := anthropicmcp.Tools(box), anthropic.NewClient() // ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
	runner := client.Beta.Messages.NewToolRunner(ts.BetaTools(ctx), anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{
			Model: "claude-sonnet-4-5", MaxTokens: 1024, Tools: ts.BetaToolParams(ctx),
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(prompt))},
		},
	})
	msg, err := runner.RunToCompletion(ctx)
	if err != nil {
		return "", err
	}
	var answer string
	for _, block := range msg.Content {
		answer += block.Text
	}
	return answer, nil
}
