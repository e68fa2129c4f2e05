-- test.lua - Neovim as a real client of `cake lsp`, through editors/nvim.
--
--   CAKE=build/cake nvim --headless --clean -u tests/editors/nvim/test.lua
--
-- Loads the plugin (ftdetect, syntax, lua/cake), opens a copy of
-- tests/editors/faulty.cake and checks: filetype and syntax, the op.unknown
-- diagnostic's range and code, hover (skipped while the server does not
-- advertise hoverProvider), :CakeCheck (cake.check's JSON in the quickfix
-- list), the quickfix code action applied with vim.lsp.util, a clean file
-- afterwards, cake.check's JSON, omnifunc, signature help, folding ranges,
-- document highlights, code lenses, workspace symbols, rename (refused, then
-- applied by vim.lsp.buf.rename), and :CakeFix (cake.applyFix through
-- workspace/applyEdit) on a second copy. Works on Neovim 0.7 and later.
-- Prints one line per check on stdout; exits 0 when all pass, else 1.
local script = debug.getinfo(1, 'S').source:sub(2)
local root = vim.fn.fnamemodify(script, ':p:h:h:h:h')
local CAKE = os.getenv('CAKE')
local TIMEOUT = 15000
local failures = 0

local function out(line) io.stdout:write(line .. '\n') end
local function check(ok, what, detail)
  out((ok and 'ok   ' or 'FAIL ') .. what .. ((not ok and detail) and (': ' .. vim.inspect(detail)) or ''))
  if not ok then failures = failures + 1 end
  return ok
end
local function wait(what, cond)
  return check(vim.wait(TIMEOUT, cond, 20), what)
end

local BAD = { start = { line = 24, character = 6 }, ['end'] = { line = 24, character = 13 } }

local function run()
  assert(CAKE and vim.fn.executable(CAKE) == 1, 'set CAKE to the cake binary (ctest does)')
  vim.opt.runtimepath:prepend(root .. '/editors/nvim')
  vim.cmd('filetype plugin indent on')
  vim.cmd('runtime! ftdetect/cake.vim')
  vim.cmd('syntax on')
  local cake = require('cake')
  cake.setup({ cmd = { CAKE, 'lsp' } })

  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local source = vim.fn.readfile(root .. '/tests/editors/faulty.cake')
  vim.fn.writefile(source, dir .. '/faulty.cake')
  vim.fn.writefile(source, dir .. '/other.cake')
  vim.cmd('edit ' .. dir .. '/faulty.cake')
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)

  check(vim.bo.filetype == 'cake', 'ftdetect: filetype cake', vim.bo.filetype)
  check(vim.bo.shiftwidth == 2 and vim.bo.commentstring == '// %s', 'ftplugin: shiftwidth 2, // comments')
  local function syn(line, col) return vim.fn.synIDattr(vim.fn.synID(line, col, 1), 'name') end
  check(syn(25, 7) == 'cakeOperation', 'syntax: tma.lod is an operation', syn(25, 7))
  check(syn(18, 8) == 'cakeSpace' and syn(18, 15) == 'cakeType', 'syntax: shared bf16', { syn(18, 8), syn(18, 15) })
  check(syn(18, 36) == 'cakeNumber', 'syntax: 128B is a number', syn(18, 36))
  check(syn(1, 1) == 'cakeComment', 'syntax: // comment', syn(1, 1))

  if not wait('a cake client attaches', function()
    local c = cake.client(buf)
    return c ~= nil and c.initialized and c.server_capabilities ~= nil
  end) then return end
  local client = cake.client(buf)
  local caps = client.server_capabilities

  -- Diagnostics pushed after didOpen.
  wait('diagnostics arrive', function() return #vim.diagnostic.get(buf) > 0 end)
  local diags = vim.diagnostic.get(buf)
  check(#diags == 1, 'one diagnostic', diags)
  local d = diags[1] or {}
  check(d.lnum == 24 and d.col == 6 and d.end_lnum == 24 and d.end_col == 13,
    'diagnostic at line 25, columns 7-14', d)
  check(d.code == 'op.unknown' and d.severity == vim.diagnostic.severity.ERROR, 'code op.unknown, error', d)
  check((d.message or ''):find("did you mean 'tma.load'", 1, true) ~= nil, 'message suggests tma.load', d.message)

  -- Hover (the ring `ab` in `ab.commit(s)`).
  if not caps.hoverProvider then
    out('SKIP hover: the server does not advertise hoverProvider (hover is not in this build)')
  else
    local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover',
      { textDocument = { uri = uri }, position = { line = 26, character = 7 } }, TIMEOUT)
    local hover = res and res[client.id] and res[client.id].result
    local value = hover and hover.contents and hover.contents.value or ''
    check(hover ~= nil and (hover.contents.kind == 'markdown' or hover.contents.kind == 'plaintext'),
      'hover contents are MarkupContent', hover)
    check(value:find('ring', 1, true) and value:find('stages(4)', 1, true), 'hover shows ring kind and detail', value)
  end

  -- :CakeCheck fills the quickfix list from cake.check's JSON.
  vim.fn.setqflist({}, 'r')
  vim.cmd('CakeCheck')
  wait(':CakeCheck fills the quickfix list', function() return #vim.fn.getqflist() > 0 end)
  local qf = vim.fn.getqflist()
  check(#qf == 1 and qf[1].lnum == 25 and qf[1].col == 7 and qf[1].text:find('[op.unknown]', 1, true),
    ':CakeCheck: op.unknown at 25:7', qf)

  -- The quickfix code action.
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
    textDocument = { uri = uri }, range = BAD,
    context = { diagnostics = { d.user_data and d.user_data.lsp or {} }, only = { 'quickfix' } },
  }, TIMEOUT)
  local actions = res and res[client.id] and res[client.id].result or {}
  check(#actions == 1 and actions[1].kind == 'quickfix' and actions[1].isPreferred, 'one preferred quickfix', actions)
  local action = actions[1] or {}
  check((action.title or ''):find('tma.load', 1, true), 'the quickfix replaces with tma.load', action.title)
  if action.edit then vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding) end
  check(vim.api.nvim_buf_get_lines(buf, 24, 25, true)[1] == '      tma.load(A[m0, k * BK], s.a)',
    'the edit is applied', vim.api.nvim_buf_get_lines(buf, 24, 25, true))
  wait('no diagnostics after the fix', function() return #vim.diagnostic.get(buf) == 0 end)

  -- cake.check through workspace/executeCommand.
  res = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand',
    { command = 'cake.check', arguments = { { uri = uri } } }, TIMEOUT)
  local result = res and res[client.id] and res[client.id].result or {}
  check(result.version == 1 and result.uri == uri, 'cake.check: version and uri', result)
  check(result.summary and result.summary.errors == 0 and result.summary.warnings == 0
    and vim.tbl_isempty(result.diagnostics), 'cake.check: clean after the fix', result)

  -- The features of issue #16, through the client.
  check(vim.bo[buf].omnifunc == 'v:lua.vim.lsp.omnifunc', 'omnifunc is vim.lsp.omnifunc', vim.bo[buf].omnifunc)
  check(caps.renameProvider and caps.signatureHelpProvider and caps.foldingRangeProvider
    and caps.documentHighlightProvider and caps.codeLensProvider, 'the new capabilities are advertised', caps)
  local function request(method, params)
    local r = vim.lsp.buf_request_sync(buf, method, params, TIMEOUT)
    local reply = r and r[client.id] or {}
    return reply.result, reply.error or reply.err
  end
  local function at(line, character)
    return { textDocument = { uri = uri }, position = { line = line, character = character } }
  end

  -- Signature help in tma.load(A[m0, k * BK], s.a), on s.a.
  local sig = request('textDocument/signatureHelp', at(24, 30))
  local label = sig and sig.signatures and sig.signatures[1] and sig.signatures[1].label or ''
  check(label:find('tma.load(src: global view, dst: shared view', 1, true) and sig.activeParameter == 1,
    'signature help: tma.load, the second operand active', sig)

  -- Folding ranges: the comment lines, the kernel, the ring.
  local folds = request('textDocument/foldingRange', { textDocument = { uri = uri } }) or {}
  local function folded(first, last, kind)
    for _, f in ipairs(folds) do
      if f.startLine == first and f.endLine == last and (kind == nil or f.kind == kind) then return true end
    end
    return false
  end
  check(folded(0, 1, 'comment') and folded(6, 42) and folded(16, 18), 'folding: comments, kernel, ring', folds)

  -- Document highlight of the ring `ab`, drawn by vim.lsp.buf.document_highlight().
  vim.api.nvim_win_set_cursor(0, { 17, 7 })
  vim.lsp.buf.document_highlight()
  local ns = vim.api.nvim_create_namespace('vim_lsp_references')
  wait('document highlight: five occurrences of ab', function()
    return #vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {}) == 5
  end)
  local marks = vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })
  check(marks[1] and marks[1][2] == 16 and marks[1][3] == 7 and marks[1][4].hl_group == 'LspReferenceWrite'
    and marks[2] and marks[2][4].hl_group == 'LspReferenceRead', 'document highlight: declaration write, uses read', marks)
  vim.lsp.buf.clear_references()

  -- Code lens: run, compile and the cost estimate above the kernel.
  vim.lsp.codelens.refresh()
  wait('code lens: three lenses', function() return #vim.lsp.codelens.get(buf) == 3 end)
  local lenses = vim.lsp.codelens.get(buf)
  local titles = {}
  for _, l in ipairs(lenses) do
    titles[#titles + 1] = l.command and l.command.title or ''
    check(l.range.start.line == 6, 'code lens on the kernel line', l)
  end
  check(lenses[1] and lenses[1].command.command == 'cake.run' and lenses[1].command.arguments[2].kernel == 'gemm'
    and lenses[2].command.command == 'cake.compile' and (titles[3] or ''):find('^cost'), 'code lens: run, compile, cost',
    titles)

  -- Workspace symbols.
  local symbols = request('workspace/symbol', { query = 'gem' }) or {}
  check(#symbols >= 1 and symbols[1].name == 'gemm' and symbols[1].kind == 12, 'workspace symbol: gemm', symbols)

  -- Rename refused (the ring would hide the constant BM), then done by vim.lsp.buf.rename.
  local _, err = request('textDocument/rename', vim.tbl_extend('force', at(16, 7), { newName = 'BM' }))
  check(err and (err.message or ''):find("hides a declaration", 1, true), 'rename to BM is refused with the reason', err)
  local prep = request('textDocument/prepareRename', at(16, 7))
  check(prep and prep.placeholder == 'ab', 'prepareRename: ab', prep)
  vim.api.nvim_win_set_cursor(0, { 17, 7 })
  vim.lsp.buf.rename('pipe')
  wait('rename: ab becomes pipe everywhere', function()
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n')
    return not text:find('ab.', 1, true) and select(2, text:gsub('pipe', '')) == 5
  end)
  check(vim.api.nvim_buf_get_lines(buf, 16, 17, true)[1] == '  ring pipe stages(4) producer(load) consumer(compute) {',
    'rename: the ring declaration', vim.api.nvim_buf_get_lines(buf, 16, 17, true))
  wait('no diagnostics after the rename', function() return #vim.diagnostic.get(buf) == 0 end)

  -- Settings while the server runs: target sm_80 reports the TMA loads, null goes back.
  local function configure(settings)
    if vim.fn.has('nvim-0.11') == 1 then
      client:notify('workspace/didChangeConfiguration', { settings = settings })
    else
      client.notify('workspace/didChangeConfiguration', { settings = settings })
    end
  end
  configure({ cake = { target = 'sm_80' } })
  wait('didChangeConfiguration: target sm_80 reports the TMA loads', function()
    local ds = vim.diagnostic.get(buf)
    if #ds == 0 then return false end
    for _, d in ipairs(ds) do
      if d.code ~= 'target.capability' then return false end
    end
    return ds[1].lnum == 24
  end)
  configure({ cake = { target = vim.NIL } })
  wait('didChangeConfiguration: target null, clean again', function() return #vim.diagnostic.get(buf) == 0 end)

  -- :CakeFix on a second copy: the server sends workspace/applyEdit.
  vim.cmd('edit ' .. dir .. '/other.cake')
  local other = vim.api.nvim_get_current_buf()
  wait('other.cake: diagnostics arrive', function() return #vim.diagnostic.get(other) == 1 end)
  vim.cmd('CakeFix')
  wait(':CakeFix applies the fix-it', function()
    return vim.api.nvim_buf_get_lines(other, 24, 25, true)[1] == '      tma.load(A[m0, k * BK], s.a)'
  end)
  wait('other.cake: no diagnostics after :CakeFix', function() return #vim.diagnostic.get(other) == 0 end)

  local id = client.id
  vim.lsp.stop_client(id)
  wait('the server stops', function() return vim.lsp.get_client_by_id(id) == nil end)
  vim.fn.delete(dir, 'rf')
end

local ok, err = pcall(run)
if not ok then check(false, 'the test ran to its end', err) end
out(string.format('nvim %s: %s', tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch,
  failures == 0 and 'all checks passed' or (failures .. ' check(s) failed')))
vim.cmd(failures == 0 and 'qall!' or 'cquit 1')
