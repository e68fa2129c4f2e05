-- lua/cake/init.lua - Neovim client for the CAKE language server (`cake lsp`).
--
--   require('cake').setup({
--     cmd = { '/path/to/build/cake', 'lsp' },  -- default { 'cake', 'lsp' }
--     on_attach = function(client, bufnr) end,  -- optional
--     settings = { cake = { target = 'sm_80' } }, -- optional: the server's settings
--     cuda = { enable = true, flags = { '-I', 'include' } }, -- optional: also check .cu/.cuh buffers
--   })
--
-- Starts one server per project root for `cake` buffers: with vim.lsp.start on
-- Neovim 0.8 and later, with vim.lsp.start_client + buf_attach_client on 0.7.
-- Sets 'omnifunc' to vim.lsp.omnifunc in the buffers it attaches to.
-- Defines :CakeCheck (cake.check: a summary, and the problems in the quickfix
-- list) and :CakeFix (cake.applyFix: every fix-it of the buffer, applied by the
-- server through workspace/applyEdit).
local M = {}

M.config = {
  cmd = { 'cake', 'lsp' },
  name = 'cake',
  root_markers = { '.git', 'CMakeLists.txt' },
  on_attach = nil,
  capabilities = nil,
  init_options = nil,
  settings = nil, -- e.g. { cake = { target = 'sm_80' } }: sent with workspace/didChangeConfiguration
  -- { enable = true, flags = {...} }: `cuda` buffers attach too and get the CUDA checker's diagnostics (beside
  -- clangd), the server told through init_options.cuda
  cuda = nil,
}

local clients = {} -- root_dir -> client id (Neovim 0.7 path)

--- The directory of the nearest root marker above `path`, else `path`'s directory.
local function root_dir(path)
  local dir = vim.fn.fnamemodify(path ~= '' and path or vim.fn.getcwd() .. '/x', ':p:h')
  for _, marker in ipairs(M.config.root_markers) do
    local found = vim.fn.finddir(marker, dir .. ';')
    if found ~= '' then return vim.fn.fnamemodify(found, ':p:h:h') end -- ':p' of a dir ends in '/'
    found = vim.fn.findfile(marker, dir .. ';')
    if found ~= '' then return vim.fn.fnamemodify(found, ':p:h') end
  end
  return dir
end

local function client_config(root)
  return {
    name = M.config.name,
    cmd = M.config.cmd,
    root_dir = root,
    capabilities = M.config.capabilities or vim.lsp.protocol.make_client_capabilities(),
    init_options = M.config.cuda and M.config.cuda.enable
        and vim.tbl_extend('force', M.config.init_options or {}, { cuda = M.config.cuda })
      or M.config.init_options,
    settings = M.config.settings,
    on_attach = function(client, bufnr)
      -- <C-x><C-o> completes from the server (issue #16: omnifunc was unset)
      vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
      if M.config.on_attach then M.config.on_attach(client, bufnr) end
    end,
  }
end

--- Starts (or reuses) the server for buffer `bufnr` and attaches it.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local root = root_dir(vim.api.nvim_buf_get_name(bufnr))
  if vim.lsp.start then -- Neovim 0.8+
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      vim.notify('cake: could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- The cake client attached to `bufnr`, or nil.
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local attached = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(attached) do
    if c.name == M.config.name then return c end
  end
  return nil
end

--- Runs a server command on the buffer's document; calls `done(err, result)`.
function M.execute(command, bufnr, done)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    vim.notify('cake: no language server attached to this buffer', vim.log.levels.WARN)
    return
  end
  local params = { command = command, arguments = { { uri = vim.uri_from_bufnr(bufnr) } } }
  local function handler(err, result)
    if err then
      vim.notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if done then done(err, result) end
  end
  if vim.fn.has('nvim-0.11') == 1 then
    client:request('workspace/executeCommand', params, handler, bufnr)
  else
    client.request('workspace/executeCommand', params, handler, bufnr)
  end
end

--- :CakeCheck - summary message, problems in the quickfix list.
function M.check(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  M.execute('cake.check', bufnr, function(err, result)
    if err or not result then return end
    local items = {}
    for _, d in ipairs(result.diagnostics or {}) do
      local start = d.range and d.range.start or { line = 1, column = 1 }
      table.insert(items, {
        bufnr = bufnr, lnum = start.line, col = start.column,
        type = (d.severity == 'error') and 'E' or 'W',
        text = string.format('%s [%s]', d.message, d.code),
      })
    end
    vim.fn.setqflist({}, ' ', { title = 'cake check', items = items })
    local s = result.summary or {}
    vim.notify(string.format('cake check: %d error(s), %d warning(s)', s.errors or 0, s.warnings or 0))
  end)
end

--- :CakeFix - apply every fix-it (the server sends workspace/applyEdit).
function M.fix(bufnr)
  M.execute('cake.applyFix', bufnr, function(err, result)
    if not err and result then vim.notify(string.format('cake: applied %d fix(es)', result.applied or 0)) end
  end)
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  local group = vim.api.nvim_create_augroup('cake_lsp', { clear = true })
  local cuda = M.config.cuda and M.config.cuda.enable
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = cuda and { 'cake', 'cuda' } or 'cake',
    callback = function(args) M.attach(args.buf) end,
  })
  vim.api.nvim_create_user_command('CakeCheck', function() M.check() end,
    { desc = 'cake: check the current file (cake.check)' })
  vim.api.nvim_create_user_command('CakeFix', function() M.fix() end,
    { desc = 'cake: apply every fix-it in the current file (cake.applyFix)' })
  -- Buffers that were already cake before setup().
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local ft = vim.bo[buf].filetype
    if vim.api.nvim_buf_is_loaded(buf) and (ft == 'cake' or (cuda and ft == 'cuda')) then M.attach(buf) end
  end
end

return M
