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
-- Needs CodeCompanion.nvim 18 or later (18.0 renamed `strategies` to `interactions`); checked
-- with v19.22.0 and Neovim 0.11.4 (docs/editors.md in the acp-mux repository says how).
--
-- CodeCompanion has no generic ACP preset, so this extends the small "opencode" preset: it
-- brings the ACP request handlers and declares authentication done (the agents' own CLIs hold
-- the login; run `acp-mux --agent NAME --login` in a terminal once).
--
-- Images: the preset says vision = true, so the chat offers /image for every command; an
-- agent that takes no images (the session's promptCapabilities say so: the demo, codex exec,
-- ...) would get the image's base64 as text. form_messages below leaves images out for those
-- agents (CodeCompanion warns that the agent does not take images).
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
          handlers = {
            form_messages = function(self, messages, capabilities)
              local offered = capabilities and capabilities.promptCapabilities or {}
              if not offered.image then
                messages = vim.tbl_filter(function(message)
                  local image = message._meta and message._meta.tag == "image"
                  if image and not (message._meta and message._meta.sent) then
                    vim.notify("acp-mux: this agent takes no images; the image is left out", vim.log.levels.WARN)
                  end
                  return not image
                end, messages)
              end
              return require("codecompanion.adapters.acp.helpers").form_messages(self, messages, capabilities)
            end,
          },
        })
      end,
    },
  },
  -- Optional: make acp-mux the default chat adapter.
  -- interactions = { chat = { adapter = "acp_mux" } },
})
