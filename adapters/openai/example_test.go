package openaimcp_test

import (
	"context"

	"github.com/openai/openai-go/v3"

	openaimcp "github.com/cuca-go/mcpconnector/adapters/openai"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// ask is docs/adapters.md's example, word for word (TestTheDocsExampleRuns
// checks both).
func ask(ctx context.Context, box *toolbox.Toolbox, prompt string) (string, error) {
	ts, client := openaimcp.Tools(box), openai.NewClient() // OPENAI_API_KEY, OPENAI_BASE_URL
	params := openai.ChatCompletionNewParams{Model: "gpt-5-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}}
	for {
		params.Tools = ts.ChatCompletionTools(ctx, params.Messages)
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", err
		}
		msg := completion.Choices[0].Message
		params.Messages = append(params.Messages, msg.ToParam())
		results := ts.ToolMessages(ctx, msg)
		if len(results) == 0 {
			return msg.Content, nil
		}
		params.Messages = append(params.Messages, results...)
	}
}
