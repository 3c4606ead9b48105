-- acp-mux for CodeCompanion.nvim (https://codecompanion.olimorris.dev/configuration/adapters-acp)
--
-- One ACP adapter, "acp_mux", with one command per agent. Pick the agent with
--   :CodeCompanionChat adapter=acp_mux command=codex
-- (without command=, CodeCompanion runs the "default" command, here claude).
--
-- If you already call require("codecompanion").setup({...}), copy the
-- `adapters.acp.acp_mux` entry below into your own setup instead of calling setup twice.
--
-- `acp-mux` must be on Neovim's PATH; otherwise replace "acp-mux" with its absolute path.
-- Diagnostics: append "--log-file", "/tmp/acp-mux.log" (and "--log-level", "DEBUG") to a command.
--
-- CodeCompanion has no generic ACP preset, so this extends the small "opencode" preset: it
-- brings the ACP request handlers and declares authentication done (the agents' own CLIs hold
-- the login; run `acp-mux --agent NAME --login` in a terminal once).
require("codecompanion").setup({
  adapters = {
    acp = {
      acp_mux = function()
        return require("codecompanion.adapters").extend("opencode", {
          name = "acp_mux",
          formatted_name = "acp-mux",
          commands = {
            default = { "acp-mux", "--agent", "claude" },
            claude = { "acp-mux", "--agent", "claude" },
            codex = { "acp-mux", "--agent", "codex" },
            gemini = { "acp-mux", "--agent", "gemini" },
            copilot = { "acp-mux", "--agent", "copilot" },
            cursor = { "acp-mux", "--agent", "cursor" },
            opencode = { "acp-mux", "--agent", "opencode" },
            pi = { "acp-mux", "--agent", "pi" },
            omp = { "acp-mux", "--agent", "omp" },
            openclaw = { "acp-mux", "--agent", "openclaw" },
            hermes = { "acp-mux", "--agent", "hermes" },
            demo = { "acp-mux", "--agent", "demo" },
            auto = { "acp-mux", "--agent", "auto" },
          },
        })
      end,
    },
  },
  -- Optional: make acp-mux the default chat adapter.
  -- interactions = { chat = { adapter = "acp_mux" } },
})
