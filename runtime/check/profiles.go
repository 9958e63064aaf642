package check

// The client profiles: what well-known MCP clients accept of a server,
// each limit with where it is written (the client's own source or docs,
// or, where the client is closed, its own error text as quoted in public
// reports — said so in the quote). This table is the one place these
// limits live; PROFILES.md is generated from it (go test ./runtime/check
// -run TestProfilesDoc -update) and a test keeps the two equal.
//
// To update: re-read each source, change the numbers, and set
// ProfilesChecked to the day you did.

// ProfilesChecked is the day every source below was last read.
const ProfilesChecked = "2026-12-01"

// Profiles are the clients `check --profile` knows, in the order `--profile
// all` lists them.
var Profiles = []Profile{
	{
		Name:   "claude-code",
		Client: "Claude Code",
		Limits: []Limit{
			{
				Rule: RuleToolNameChars, Pattern: `^[A-Za-z0-9_-]+$`, Status: Fail,
				Effect: "Claude's API refuses the request: a tool name must match ^[a-zA-Z0-9_-]{1,64}$ (no dots, no spaces)",
				Source: "https://platform.claude.com/docs/en/api/messages",
				Quote:  `Tool.name in the Messages API's schema: "The name of the tool. Must match the regex ^[a-zA-Z0-9_-]{1,64}$." (read as mirrored at https://schemas.apis.io/schemas/claude/claude-tool/)`,
			},
			{
				Rule: RuleQualifiedNameLength, Format: "mcp__{server}__{tool}", Max: 64, Status: Fail,
				Effect: "Claude Code calls the tool mcp__SERVER__TOOL, and the API refuses a name over 64 characters: the longer the server's name in the user's configuration, the less is left",
				Source: "https://github.com/cloudflare/skills/issues/11",
				Quote:  `the API's own error: "tool_reference.tool_name: String should have at most 64 characters"; naming: "mcp__<server>__<tool>" (https://code.claude.com/docs/en/mcp)`,
			},
			{
				Rule: RuleDescriptionLength, Max: 2048, Status: Warn,
				Effect: "the description is cut at 2 KB before the model sees it",
				Source: "https://code.claude.com/docs/en/mcp",
				Quote:  `"Claude Code truncates tool descriptions and server instructions at 2KB each." (the constant is 2048: https://github.com/anthropics/claude-code/issues/81268)`,
			},
			{
				Rule: RuleInstructionsLength, Max: 2048, Status: Warn,
				Effect: "the server's instructions are cut at 2 KB",
				Source: "https://code.claude.com/docs/en/mcp",
				Quote:  `"Claude Code truncates tool descriptions and server instructions at 2KB each."`,
			},
		},
	},
	{
		Name:   "codex",
		Client: "OpenAI Codex CLI",
		Limits: []Limit{
			{
				Rule: RuleToolNameChars, Pattern: `^[A-Za-z0-9_-]+$`, Status: Warn,
				Effect: "renamed: every character outside A-Z a-z 0-9 _ - becomes _ (the Responses API's rule)",
				Source: "https://github.com/openai/codex/blob/00302de71ca3c3d5fc3f9361b7111ca41964f8c5/codex-rs/core/src/mcp_connection_manager.rs",
				Quote:  `sanitize_responses_api_tool_name: "The Responses API requires tool names to match ^[a-zA-Z0-9_-]+$"`,
			},
			{
				Rule: RuleQualifiedNameLength, Format: "mcp__{server}__{tool}", Max: 64, Status: Warn,
				Effect: "renamed: mcp__SERVER__TOOL over 64 characters is cut and ends in a SHA-1 of the full name, which the model sees instead",
				Source: "https://github.com/openai/codex/blob/00302de71ca3c3d5fc3f9361b7111ca41964f8c5/codex-rs/core/src/mcp_connection_manager.rs",
				Quote:  `const MAX_TOOL_NAME_LENGTH: usize = 64; qualify_tools: format!("mcp{}{}{}{}", "__", server_name, "__", tool_name)`,
			},
		},
	},
	{
		Name:   "gemini-cli",
		Client: "Gemini CLI",
		Limits: []Limit{
			{
				Rule: RuleToolNameChars, Pattern: `^[A-Za-z0-9_.-]+$`, Status: Warn,
				Effect: "renamed: every character outside A-Z a-z 0-9 _ . - becomes _",
				Source: "https://github.com/google-gemini/gemini-cli/blob/03647aa5cd6f7022bf18ff6f603e8a1e3e1422c8/packages/core/src/tools/mcp-tool.ts",
				Quote:  `generateValidName: name.replace(/[^a-zA-Z0-9_.-]/g, '_')`,
			},
			{
				Rule: RuleToolNameLength, Max: 63, Status: Warn,
				Effect: "renamed: a name over 63 characters keeps its first 28 and last 32, joined by ___",
				Source: "https://github.com/google-gemini/gemini-cli/blob/03647aa5cd6f7022bf18ff6f603e8a1e3e1422c8/packages/core/src/tools/mcp-tool.ts",
				Quote:  `"If longer than 63 characters, replace middle with '___' (Gemini API says max length 64, but actual limit seems to be 63)"`,
			},
			{
				Rule: RuleSchemaKeywords, Keywords: []string{"$ref", "$defs", "definitions"}, Status: Warn,
				Effect: "the Gemini API has refused input schemas with $defs references (400 \"reference to undefined schema\"), and the tool fails to load",
				Source: "https://github.com/google-gemini/gemini-cli/issues/13326",
				Quote:  `"Gemini API rejects MCP tool schemas with $defs references" (open)`,
			},
		},
	},
	{
		Name:   "vscode",
		Client: "GitHub Copilot in VS Code",
		Limits: []Limit{
			{
				Rule: RuleToolCount, Max: 128, Status: Fail,
				Effect: "a chat request with more than 128 tools fails; with this server alone over it, the user must deselect tools",
				Source: "https://github.com/microsoft/vscode-copilot-release/issues/11653",
				Quote:  `the extension's check, as quoted there: if(n.tools&&n.tools.length>128)throw new Error("Cannot have more than 128 tools per request.")`,
			},
		},
	},
	{
		Name:   "cursor",
		Client: "Cursor",
		Limits: []Limit{
			{
				Rule: RuleQualifiedNameLength, Format: "{server}{tool}", Max: 60, Status: Warn,
				Effect: "the tool may be left out: Cursor warns when the server's name and the tool's together pass 60 characters",
				Source: "https://github.com/Mgabr90/universal-mcp-servers/blob/main/docs/troubleshooting/MCP_NAMING_ISSUES.md",
				Quote:  `Cursor's message as quoted there (Cursor is closed source): "Combined server and tool name length (65) exceeds 60 characters"`,
			},
			{
				Rule: RuleToolCount, Max: 40, Status: Warn,
				Effect: "the agent is given the first 40 MCP tools only",
				Source: "https://github.com/modelcontextprotocol/.github/discussions/360",
				Quote:  `a user's report of Cursor's error (Cursor is closed source): "Cursor cannot take more than 40 tools"`,
			},
		},
	},
}
