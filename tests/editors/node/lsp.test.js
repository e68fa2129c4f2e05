// lsp.test.js - `cake lsp` driven by vscode-languageserver-protocol over stdio.
//
// The same JSON-RPC and protocol libraries as VS Code's client (the versions
// of editors/vscode's vscode-languageclient), announcing VS Code's main
// capabilities. Opens tests/editors/faulty.cake (tma.lod, op.unknown with a
// fix-it) and checks: the diagnostic's range and code, hover (skipped while
// the server does not advertise hoverProvider), the quickfix code action,
// the clean file after applying it (pushed and pulled), cake.check's JSON
// before and after, cake.applyFix through workspace/applyEdit, and that a
// change's diagnostics precede the reply to the request that follows it.
// The server binary is $CAKE (ctest sets it).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const rpc = require('vscode-languageserver-protocol/node');

const CAKE = process.env.CAKE;
const fixture = path.join(__dirname, '..', 'faulty.cake');
const vscodePackage = path.join(__dirname, '..', '..', '..', 'editors', 'vscode', 'package.json');
const TIMEOUT_MS = 15000;

// The op.unknown diagnostic of faulty.cake: line 25, columns 7-14 (1-based).
const BAD_RANGE = { start: { line: 24, character: 6 }, end: { line: 24, character: 13 } };

/** Applies LSP text edits (ASCII text: UTF-16 units are bytes) to `text`. */
function applyEdits(text, edits) {
  const lines = text.split('\n');
  const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted) text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  return text;
}

/** A started server with a connection, collected diagnostics and a document store. */
class Session {
  constructor() {
    this.proc = cp.spawn(CAKE, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.raw = ''; // everything the server wrote, for checks on message order
    this.proc.stdout.on('data', (chunk) => { this.raw += chunk.toString(); });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.conn = rpc.createProtocolConnection(
      new rpc.StreamMessageReader(this.proc.stdout), new rpc.StreamMessageWriter(this.proc.stdin));
    this.published = []; // every publishDiagnostics params, in order
    this.waiters = [];
    this.docs = new Map(); // uri -> { text, version }
    this.conn.onNotification(rpc.PublishDiagnosticsNotification.type, (params) => {
      this.published.push(params);
      this.waiters = this.waiters.filter((w) => !w(params));
    });
    this.conn.onRequest(rpc.ApplyWorkspaceEditRequest.type, (params) => {
      this.appliedEdits = (this.appliedEdits || 0) + 1;
      this.applyWorkspaceEdit(params.edit);
      return { applied: true };
    });
    this.conn.listen();
  }

  /** Resolves with the first publishDiagnostics for `uri` that `pred` accepts. */
  diagnostics(uri, pred = () => true) {
    const found = this.published.find((p) => p.uri === uri && pred(p));
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching publishDiagnostics for ${uri}; got ${
        JSON.stringify(this.published.filter((p) => p.uri === uri))}`)), TIMEOUT_MS);
      this.waiters.push((p) => {
        if (p.uri !== uri || !pred(p)) return false;
        clearTimeout(timer);
        resolve(p);
        return true;
      });
    });
  }

  open(uri, text) {
    this.docs.set(uri, { text, version: 1 });
    this.conn.sendNotification(rpc.DidOpenTextDocumentNotification.type,
      { textDocument: { uri, languageId: 'cake', version: 1, text } });
  }

  /** Applies a WorkspaceEdit to the local documents and tells the server (incremental didChange). */
  applyWorkspaceEdit(edit) {
    const perDoc = edit.documentChanges
      ? edit.documentChanges.map((c) => [c.textDocument.uri, c.edits, c.textDocument.version])
      : Object.entries(edit.changes || {}).map(([uri, edits]) => [uri, edits, null]);
    for (const [uri, edits, version] of perDoc) {
      const doc = this.docs.get(uri);
      assert.ok(doc, `edit for a document that is not open: ${uri}`);
      if (version !== null) assert.strictEqual(version, doc.version, 'edit made for another version');
      doc.text = applyEdits(doc.text, edits);
      doc.version++;
      this.conn.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: doc.version },
        contentChanges: edits.map((e) => ({ range: e.range, text: e.newText })),
      });
    }
  }

  request(type, params) {
    return Promise.race([
      this.conn.sendRequest(type, params),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`${type.method} timed out`)), TIMEOUT_MS).unref()),
    ]);
  }

  async close() {
    await this.request(rpc.ShutdownRequest.type, undefined);
    this.conn.sendNotification(rpc.ExitNotification.type);
    const code = await this.exited;
    this.conn.dispose();
    return code;
  }
}

const capabilities = {
  general: { positionEncodings: ['utf-16'] },
  textDocument: {
    synchronization: { didSave: true, dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    codeAction: {
      codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } },
      isPreferredSupport: true, dataSupport: true,
    },
    formatting: {},
  },
  workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, executeCommand: {} },
  window: { workDoneProgress: true },
};

test('cake lsp with the vscode-languageserver-protocol client', async (t) => {
  assert.ok(CAKE, 'set CAKE to the cake binary (ctest does)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cake-node-'));
  const file = path.join(dir, 'faulty.cake');
  fs.copyFileSync(fixture, file);
  const uri = pathToFileURL(file).href;
  const original = fs.readFileSync(file, 'utf8');
  const s = new Session();
  t.after(() => { s.proc.kill(); fs.rmSync(dir, { recursive: true, force: true }); });

  const init = await s.request(rpc.InitializeRequest.type,
    { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities, clientInfo: { name: 'node-test' } });
  const caps = init.capabilities;
  assert.strictEqual(init.serverInfo.name, 'cake');
  assert.strictEqual(caps.positionEncoding, 'utf-16');
  assert.deepStrictEqual(caps.codeActionProvider.codeActionKinds, ['quickfix', 'refactor.rewrite']);
  assert.ok(caps.documentFormattingProvider);
  // The VS Code extension contributes palette entries for the server's commands.
  const contributed = JSON.parse(fs.readFileSync(vscodePackage, 'utf8')).contributes.commands
    .map((c) => c.command).filter((c) => c !== 'cake.restartServer');
  for (const c of contributed)
    assert.ok(caps.executeCommandProvider.commands.includes(c), `server does not offer ${c}`);
  s.conn.sendNotification(rpc.InitializedNotification.type, {});

  await t.test('diagnostics at the misspelled operation', async () => {
    s.open(uri, original);
    const pub = await s.diagnostics(uri);
    assert.strictEqual(pub.version, 1);
    assert.strictEqual(pub.diagnostics.length, 1, JSON.stringify(pub.diagnostics));
    const d = pub.diagnostics[0];
    assert.deepStrictEqual(d.range, BAD_RANGE);
    assert.strictEqual(d.code, 'op.unknown');
    assert.strictEqual(d.severity, rpc.DiagnosticSeverity.Error);
    assert.strictEqual(d.source, 'cake');
    assert.match(d.message, /unknown operation 'tma\.lod'; did you mean 'tma\.load'\?/);
    assert.match(d.codeDescription.href, /docs\/rules\/op\.unknown\.md$/);
    assert.strictEqual(d.data.fixes[0].edits[0].newText, 'tma.load');
  });

  await t.test('hover on a ring shows its kind and detail', async (t) => {
    if (!caps.hoverProvider) {
      t.skip('the server does not advertise hoverProvider (hover is not in this build)');
      return;
    }
    // `ab` in `ab.commit(s)`, line 27.
    const hover = await s.request(rpc.HoverRequest.type, { textDocument: { uri }, position: { line: 26, character: 7 } });
    assert.ok(hover && hover.contents, 'no hover for the ring ab');
    assert.ok(['markdown', 'plaintext'].includes(hover.contents.kind), JSON.stringify(hover));
    assert.match(hover.contents.value, /\bring\b/);
    assert.match(hover.contents.value, /stages\(4\)/);
  });

  await t.test('cake.check reports the error as JSON', async () => {
    const r = await s.request(rpc.ExecuteCommandRequest.type, { command: 'cake.check', arguments: [{ uri }] });
    assert.strictEqual(r.version, 1);
    assert.strictEqual(r.uri, uri);
    assert.deepStrictEqual(r.summary, { errors: 1, warnings: 0 });
    assert.strictEqual(r.diagnostics[0].code, 'op.unknown');
    assert.deepStrictEqual([r.diagnostics[0].range.start.line, r.diagnostics[0].range.start.column], [25, 7]);
  });

  await t.test('the quickfix repairs the file', async () => {
    const pub = s.published.find((p) => p.uri === uri);
    const actions = await s.request(rpc.CodeActionRequest.type, {
      textDocument: { uri }, range: BAD_RANGE, context: { diagnostics: pub.diagnostics, only: ['quickfix'] },
    });
    assert.strictEqual(actions.length, 1, JSON.stringify(actions));
    const a = actions[0];
    assert.strictEqual(a.kind, 'quickfix');
    assert.strictEqual(a.isPreferred, true);
    assert.match(a.title, /tma\.load/);
    assert.strictEqual(a.diagnostics[0].code, 'op.unknown');
    assert.deepStrictEqual(a.edit.documentChanges[0].textDocument, { uri, version: 1 });
    s.applyWorkspaceEdit(a.edit);
    assert.ok(s.docs.get(uri).text.includes('      tma.load(A[m0, k * BK], s.a)\n'));
    const clean = await s.diagnostics(uri, (p) => p.version === 2);
    assert.deepStrictEqual(clean.diagnostics, []);
    const pulled = await s.request(rpc.DocumentDiagnosticRequest.type, { textDocument: { uri } });
    assert.deepStrictEqual(pulled, { kind: 'full', items: [] });
  });

  await t.test('cake.check is clean after the fix', async () => {
    const r = await s.request(rpc.ExecuteCommandRequest.type, { command: 'cake.check', arguments: [{ uri }] });
    assert.deepStrictEqual(r.diagnostics, []);
    assert.deepStrictEqual(r.summary, { errors: 0, warnings: 0 });
  });

  await t.test('after the fix, hover on the kernel and inlay hints show the cost estimate', async (t) => {
    if (!caps.hoverProvider) {
      t.skip('the server does not advertise hoverProvider');
      return;
    }
    // `gemm` in `kernel gemm(`, line 7.
    const hover = await s.request(rpc.HoverRequest.type, { textDocument: { uri }, position: { line: 6, character: 8 } });
    assert.ok(hover && hover.contents, 'no hover for the kernel');
    assert.match(hover.contents.value, /Cost estimate/);
    assert.match(hover.contents.value, /\d+(\.\d+)? (us|ns|ms), bound by /);
    const hints = await s.request('textDocument/inlayHint', {
      textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 60, character: 0 } } });
    assert.ok(hints.some((h) => /\/tile/.test(typeof h.label === 'string' ? h.label : '')), JSON.stringify(hints));
  });

  await t.test('cake.applyFix edits through workspace/applyEdit', async () => {
    const other = pathToFileURL(path.join(dir, 'other.cake')).href;
    s.open(other, original);
    await s.diagnostics(other, (p) => p.diagnostics.length === 1);
    const r = await s.request(rpc.ExecuteCommandRequest.type, { command: 'cake.applyFix', arguments: [other] });
    assert.strictEqual(r.applied, 1);
    const clean = await s.diagnostics(other, (p) => p.version === 2);
    assert.deepStrictEqual(clean.diagnostics, []);
    assert.strictEqual(s.appliedEdits, 1);
    assert.strictEqual(s.docs.get(other).text, s.docs.get(uri).text);
  });

  await t.test("a change's diagnostics arrive before the reply to the next request", async () => {
    // Clients that wait for a reply (eglot's jsonrpc) may not read what follows it in
    // the same read. Both messages go in one write, so the server reads them together.
    const other = pathToFileURL(path.join(dir, 'other.cake')).href;
    const frame = (m) => { const b = JSON.stringify(m); return `Content-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`; };
    const doc = s.docs.get(other);
    doc.version++;
    s.proc.stdin.write(frame({ jsonrpc: '2.0', method: 'textDocument/didChange', params: {
      textDocument: { uri: other, version: doc.version },
      contentChanges: [{ range: BAD_RANGE, text: 'tma.lod' }], // break it again
    } }) + frame({ jsonrpc: '2.0', id: 'order-1', method: 'workspace/executeCommand',
      params: { command: 'cake.check', arguments: [other] } }));
    const reply = '"id":"order-1"';
    const publish = `"uri":"${other}","version":${doc.version}}`;
    const deadline = Date.now() + TIMEOUT_MS;
    while (!(s.raw.includes(reply) && s.raw.includes(publish)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.ok(s.raw.includes(reply) && s.raw.includes(publish), 'no reply or no publishDiagnostics');
    assert.ok(s.raw.indexOf(publish) < s.raw.indexOf(reply), 'publishDiagnostics came after the reply');
  });

  await t.test('cake.compile and cake/viewLowered answer with results, not a crash', async () => {
    const compiled = await s.request(rpc.ExecuteCommandRequest.type, { command: 'cake.compile', arguments: [{ uri }] });
    assert.strictEqual(typeof compiled.ok, 'boolean');
    assert.ok(Array.isArray(compiled.diagnostics));
    const lowered = await s.request('cake/viewLowered', { textDocument: { uri } });
    assert.strictEqual(typeof lowered.ok, 'boolean');
    if (lowered.ok) assert.match(lowered.source, /__global__/);
  });

  assert.strictEqual(await s.close(), 0);
});
