// test/extension.test.js - extension.js against stand-ins for `vscode` and the client.
//
// VS Code itself cannot run here, so this checks the extension's own logic:
// the server command line from the settings, the client options, the
// cake.restartServer command, and the middleware (palette commands get the
// active document; pushed diagnostics are dropped when the server offers pull).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const Module = require('node:module');
const path = require('node:path');

function fakeVscode(settings, activeDoc) {
  const commands = new Map();
  const messages = [];
  return {
    messages,
    workspace: {
      getConfiguration: () => ({ get: (key, dflt) => (key in settings ? settings[key] : dflt) }),
      onDidChangeConfiguration: () => ({ dispose() {} }),
    },
    window: {
      activeTextEditor: activeDoc && { document: activeDoc },
      createOutputChannel: () => ({ appendLine() {}, dispose() {} }),
      showInformationMessage: (m) => messages.push(['info', m]),
      showWarningMessage: (m) => messages.push(['warning', m]),
      showErrorMessage: (m) => messages.push(['error', m]),
    },
    commands: {
      registerCommand: (name, fn) => {
        assert.ok(!commands.has(name), `command ${name} registered twice`);
        commands.set(name, fn);
        return { dispose: () => commands.delete(name) };
      },
      executeCommand: (name, ...args) => commands.get(name)(...args),
    },
    registered: commands,
  };
}

function fakeClientModule(record) {
  class LanguageClient {
    constructor(id, name, server, options) {
      Object.assign(this, { id, name, server, options, started: 0, stopped: 0 });
      this.initializeResult = { capabilities: { diagnosticProvider: { interFileDependencies: false } } };
      this.code2ProtocolConverter = { asUri: (uri) => uri.toString() };
      record.push(this);
    }
    async start() { this.started++; }
    async stop() { this.stopped++; }
  }
  return { LanguageClient };
}

/** Loads a fresh extension.js with the stand-ins in place of its imports. */
function loadExtension(vscode, clients) {
  const file = path.join(__dirname, '..', 'extension.js');
  const original = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === 'vscode') return vscode;
    if (request === 'vscode-languageclient/node') return fakeClientModule(clients);
    return original.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[require.resolve(file)];
    return require(file);
  } finally {
    Module._load = original;
  }
}

const cakeDoc = {
  languageId: 'cake',
  uri: { toString: () => 'file:///w/a.cake' },
  save: async () => true,
};

test('starts `cake lsp` for cake documents by default', async () => {
  const vscode = fakeVscode({}, cakeDoc);
  const clients = [];
  const ext = loadExtension(vscode, clients);
  await ext.activate({ subscriptions: [] });
  assert.strictEqual(clients.length, 1);
  const c = clients[0];
  assert.deepStrictEqual(c.server, { command: 'cake', args: ['lsp'] });
  assert.strictEqual(c.id, 'cake');
  assert.strictEqual(c.started, 1);
  assert.ok(c.options.documentSelector.some((s) => s.language === 'cake' && s.scheme === 'file'));
  assert.ok(vscode.registered.has('cake.restartServer'));
  // cake.target and cake.lower: the initialization options, then settings.cake as they change.
  assert.deepStrictEqual(c.options.initializationOptions, { target: null, lower: false });
  assert.deepStrictEqual(c.options.synchronize, { configurationSection: 'cake' });
  // The server's commands are registered by the client from executeCommandProvider, not by us.
  for (const name of ['cake.check', 'cake.compile', 'cake.run', 'cake.bench', 'cake.applyFix'])
    assert.ok(!vscode.registered.has(name), `${name} would clash with the client's registration`);
});

test('cake.target and cake.lower become the initialization options', async () => {
  const vscode = fakeVscode({ target: 'sm_80', lower: true }, cakeDoc);
  const clients = [];
  const ext = loadExtension(vscode, clients);
  await ext.activate({ subscriptions: [] });
  assert.deepStrictEqual(clients[0].options.initializationOptions, { target: 'sm_80', lower: true });
});

test('cake.cuda.enable adds CUDA sources to the selector and the cuda initialization option', async () => {
  const off = fakeVscode({}, cakeDoc);
  const offClients = [];
  await loadExtension(off, offClients).activate({ subscriptions: [] });
  assert.ok(!offClients[0].options.documentSelector.some((s) => s.language === 'cuda-cpp'));
  assert.ok(!('cuda' in offClients[0].options.initializationOptions));
  const on = fakeVscode({ 'cuda.enable': true, 'cuda.flags': ['-I', 'include'] }, cakeDoc);
  const clients = [];
  await loadExtension(on, clients).activate({ subscriptions: [] });
  assert.ok(clients[0].options.documentSelector.some((s) => s.language === 'cuda-cpp' && s.scheme === 'file'));
  assert.deepStrictEqual(clients[0].options.initializationOptions.cuda, { enable: true, flags: ['-I', 'include'] });
});

test('cake.serverPath and cake.serverArgs choose the command; restart re-reads them', async () => {
  const settings = { serverPath: '/opt/cake/bin/cake', serverArgs: ['lsp', '--log'] };
  const vscode = fakeVscode(settings, cakeDoc);
  const clients = [];
  const ext = loadExtension(vscode, clients);
  await ext.activate({ subscriptions: [] });
  assert.deepStrictEqual(clients[0].server, { command: '/opt/cake/bin/cake', args: ['lsp', '--log'] });
  settings.serverPath = '/other/cake';
  await vscode.commands.executeCommand('cake.restartServer');
  assert.strictEqual(clients[0].stopped, 1);
  assert.strictEqual(clients.length, 2);
  assert.deepStrictEqual(clients[1].server.command, '/other/cake');
  assert.strictEqual(clients[1].started, 1);
});

test('palette commands run on the active document and report the result', async () => {
  const vscode = fakeVscode({}, cakeDoc);
  const clients = [];
  const ext = loadExtension(vscode, clients);
  await ext.activate({ subscriptions: [] });
  const mw = clients[0].options.middleware;
  const sent = [];
  const result = await mw.executeCommand('cake.check', [], async (command, args) => {
    sent.push([command, args]);
    return { version: 1, diagnostics: [{ code: 'op.unknown' }], summary: { errors: 1, warnings: 0 } };
  });
  assert.deepStrictEqual(sent, [['cake.check', [{ uri: 'file:///w/a.cake' }]]]);
  assert.strictEqual(result.summary.errors, 1);
  assert.deepStrictEqual(vscode.messages.pop(), ['info', 'cake check: 1 error(s), 0 warning(s)']);
  // Arguments given by a caller are passed through untouched.
  await mw.executeCommand('cake.check', ['file:///x.cake'], async (command, args) => sent.push([command, args]));
  assert.deepStrictEqual(sent[1], ['cake.check', ['file:///x.cake']]);
  // A failing command becomes an error message, not an exception.
  await mw.executeCommand('cake.compile', [], async () => {
    throw new Error('not implemented yet');
  });
  assert.deepStrictEqual(vscode.messages.pop(), ['error', 'cake.compile: not implemented yet']);
});

test('pushed diagnostics are dropped while the server offers pull diagnostics', async () => {
  const vscode = fakeVscode({}, cakeDoc);
  const clients = [];
  const ext = loadExtension(vscode, clients);
  await ext.activate({ subscriptions: [] });
  const mw = clients[0].options.middleware;
  let forwarded = 0;
  mw.handleDiagnostics('file:///w/a.cake', [], () => forwarded++);
  assert.strictEqual(forwarded, 0);
  clients[0].initializeResult = { capabilities: {} };
  mw.handleDiagnostics('file:///w/a.cake', [], () => forwarded++);
  assert.strictEqual(forwarded, 1);
});

test('summarize reads the cake check JSON summary', () => {
  const ext = loadExtension(fakeVscode({}, undefined), []);
  assert.strictEqual(ext.summarize({ diagnostics: [], summary: { errors: 0, warnings: 0 } }), 'cake check: no problems');
  assert.strictEqual(ext.summarize({ summary: { errors: 2, warnings: 1 } }), 'cake check: 2 error(s), 1 warning(s)');
});

test('cake.score asks for the task, takes a .cu document, and sums the report up', async () => {
  const cuDoc = { languageId: 'cuda-cpp', uri: { toString: () => 'file:///w/k.cu' }, save: async () => true };
  const vscode = fakeVscode({ task: 'gemm' }, cuDoc);
  vscode.window.showInputBox = async (o) => o.value; // the remembered task, accepted
  const clients = [];
  const ext = loadExtension(vscode, clients);
  await ext.activate({ subscriptions: [] });
  const mw = clients[0].options.middleware;
  const sent = [];
  await mw.executeCommand('cake.score', [], async (command, args) => {
    sent.push([command, args]);
    return { ok: true, accepted: false, score: 0, report: { task: 'gemm', rejections: [{ reason: 'unwritten' }, { reason: 'unwritten' }] } };
  });
  assert.deepStrictEqual(sent, [['cake.score', [{ uri: 'file:///w/k.cu' }, { task: 'gemm' }]]]);
  assert.deepStrictEqual(vscode.messages.pop(), ['info', 'cake task gemm: not accepted (unwritten)']);
  // other commands still want a .cake document
  await mw.executeCommand('cake.check', [], async () => assert.fail('sent'));
  assert.deepStrictEqual(vscode.messages.pop(), ['warning', 'cake.check: open a .cake file first']);
  assert.strictEqual(ext.summarizeScore({ ok: true, accepted: true, score: 1.5, report: { task: 't', geomean_speedup: 1.5 } }),
                     'cake task t: accepted, score 1.500, 1.500x the baseline');
});
