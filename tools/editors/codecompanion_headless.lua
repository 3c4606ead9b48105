-- Headless CodeCompanion v19.22.0 + acp-mux: load the project's config unmodified, open a chat with the given
-- command, send a prompt, answer each permission question "allow once", and write what the person would see.
local out_path = os.getenv("CC_OUT")
local command = os.getenv("CC_COMMAND") or "demo"
local prompt = os.getenv("CC_PROMPT") or "hello"
local out = {}
local function say(...) table.insert(out, table.concat(vim.tbl_map(tostring, { ... }), " ")) end
vim.opt.rtp:prepend("/tmp/plenary")
vim.opt.rtp:prepend("/tmp/ccrt")
vim.notify = function(msg, level) say("NOTIFY", level or "", msg) end
dofile(os.getenv("CC_CONFIG"))
local rp = require("codecompanion.interactions.chat.acp.request_permission")
rp.confirm = function(chat, request)
  local call = request.tool_call
  local first = call.content and call.content[1]
  local path = call.locations and call.locations[1] and call.locations[1].path
    or (first and first.path and vim.fs.joinpath(vim.fn.getcwd(), first.path))
  say("PERMISSION", call.kind, call.title, "->", vim.fn.fnamemodify(path or "?", ":."))
  if first and first.type == "diff" then
    say("  OLD", vim.inspect(first.oldText))
    say("  NEW", vim.inspect(first.newText))
  end
  for _, option in ipairs(request.options) do
    if option.kind == "allow_once" then
      return request.respond(option.optionId, false)
    end
  end
end
vim.cmd("CodeCompanionChat adapter=acp_mux command=" .. command)
local chat = require("codecompanion").last_chat()
vim.wait(15000, function() return chat.acp_connection ~= nil end, 100)
chat:add_buf_message({ role = "user", content = prompt })
chat:submit()
vim.wait(60000, function()
  local lines = vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false)
  local text = table.concat(lines, "\n")
  return text:find("Done: notes.txt") ~= nil or text:find("You said") ~= nil or #out > 0 and out[#out]:find("NOTIFY") ~= nil
end, 200)
vim.wait(1500)
say("CHAT BUFFER:")
for _, line in ipairs(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false)) do say(line) end
vim.fn.writefile(out, out_path)
vim.cmd("qa!")
