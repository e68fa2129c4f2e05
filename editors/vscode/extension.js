// extension.js - VS Code client for the CAKE language server (`cake lsp`).
//
// Starts `cake.serverPath cake.serverArgs` (default `cake lsp`) on stdio for
// `cake` documents through vscode-languageclient. The server's own commands
// (cake.check, cake.applyFix, cake.compile, cake.run, cake.bench,
// cake.selectInstantiation, cake.score) are registered by the client from the server's
// executeCommandProvider; the middleware below fills in the active document
// when one is run from the command palette (and, for
// cake.selectInstantiation, asks for the instantiation's name; for cake.score,
// which also takes a .cu document, the task, remembered in cake.task) and shows
// the answer. cake.restartServer is ours. The cake.target and cake.lower settings
// are the server's initializationOptions and reach it as they change.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;
/** @type {vscode.OutputChannel | undefined} */
let output;

/** The server command line from the settings. */
function serverOptions() {
  const config = vscode.workspace.getConfiguration('cake');
  const command = config.get('serverPath', 'cake') || 'cake';
  const args = config.get('serverArgs', ['lsp']);
  return { command, args: Array.isArray(args) ? args.map(String) : ['lsp'] };
}

/** The server's settings (initializationOptions, and settings.cake of workspace/didChangeConfiguration). */
function serverSettings() {
  const config = vscode.workspace.getConfiguration('cake');
  const settings = { target: config.get('target', '') || null, lower: config.get('lower', false) === true };
  // cake.cuda.enable: .cu/.cuh files get the CUDA checker's diagnostics too (beside clangd or NVIDIA's extension)
  if (config.get('cuda.enable', false) === true)
    settings.cuda = { enable: true, flags: config.get('cuda.flags', []) };
  return settings;
}

function cudaEnabled() {
  return vscode.workspace.getConfiguration('cake').get('cuda.enable', false) === true;
}

/** One line for a cake.check answer (the `cake check --format json` schema: diagnostics, summary). */
function summarize(result) {
  const summary = (result && result.summary) || {};
  const errors = summary.errors || 0;
  const warnings = summary.warnings || 0;
  if (errors === 0 && warnings === 0) return 'cake check: no problems';
  return `cake check: ${errors} error(s), ${warnings} warning(s)`;
}

/** One line for a cake.score answer (the `cake task` report: accepted, score, rejections). */
function summarizeScore(result) {
  if (!result || !result.ok) return `cake task: ${(result && result.message) || 'no report'}`;
  const r = result.report || {};
  if (result.accepted) {
    const speedup = typeof r.geomean_speedup === 'number' ? `, ${r.geomean_speedup.toFixed(3)}x the baseline` : '';
    return `cake task ${r.task}: accepted, score ${Number(result.score).toFixed(3)}${speedup}`;
  }
  const reasons = [...new Set((r.rejections || []).map((x) => x.reason))].join(', ');
  return `cake task ${r.task}: not accepted (${reasons || r.baseline_error || 'see the output'})`;
}

/** Runs a server command, filling in the active cake document when called without arguments. */
async function executeCommand(command, args, next) {
  let params = args;
  if (params.length === 0) {
    const editor = vscode.window.activeTextEditor;
    const languages = command === 'cake.score' ? ['cake', 'cuda-cpp'] : ['cake'];
    if (!editor || !languages.includes(editor.document.languageId)) {
      vscode.window.showWarningMessage(`${command}: open a .cake file${command === 'cake.score' ? ' or a .cu file' : ''} first`);
      return undefined;
    }
    if (command === 'cake.compile' || command === 'cake.run' || command === 'cake.bench') await editor.document.save();
    params = [{ uri: client.code2ProtocolConverter.asUri(editor.document.uri) }];
    if (command === 'cake.score') {
      const config = vscode.workspace.getConfiguration('cake');
      const task = await vscode.window.showInputBox({
        prompt: 'The task: a shipped task (gemm, kmeans-assign, knn-search, kda-prefill) or a task.json',
        value: config.get('task', '') || '',
        placeHolder: 'kmeans-assign',
      });
      if (!task) return undefined; // dismissed
      if (config.update) await config.update('task', task, false);
      params.push({ task });
    }
    if (command === 'cake.selectInstantiation') {
      const name = await vscode.window.showInputBox({
        prompt: 'An instantiation of the manifest beside this file (empty: the first)',
        placeHolder: 'assign_d64_wg2',
      });
      if (name === undefined) return undefined; // dismissed
      params.push(name);
    }
  }
  try {
    const result = await next(command, params);
    if (args.length === 0) {
      output.appendLine(`${command}: ${JSON.stringify(result, null, 2)}`);
      if (command === 'cake.check') vscode.window.showInformationMessage(summarize(result));
      else if (command === 'cake.applyFix') vscode.window.showInformationMessage(`cake: applied ${result.applied} fix(es)`);
      else if (command === 'cake.score') vscode.window.showInformationMessage(summarizeScore(result));
      else if (command === 'cake.selectInstantiation')
        vscode.window.showInformationMessage(`cake: ${result.note || 'no parameters: the file as it is'}`);
    }
    return result;
  } catch (error) {
    vscode.window.showErrorMessage(`${command}: ${error && error.message ? error.message : error}`);
    return undefined;
  }
}

function createClient() {
  return new LanguageClient('cake', 'CAKE language server', serverOptions(), {
    documentSelector: [
      { scheme: 'file', language: 'cake' },
      { scheme: 'untitled', language: 'cake' },
      // VS Code's language id for CUDA sources
      ...(cudaEnabled() ? [{ scheme: 'file', language: 'cuda-cpp' }] : []),
    ],
    outputChannel: output,
    initializationOptions: serverSettings(),
    // cake.* settings go to the server as they change (workspace/didChangeConfiguration, settings.cake)
    synchronize: { configurationSection: 'cake' },
    middleware: {
      executeCommand,
      // The server answers textDocument/diagnostic and also pushes; when it
      // offers pull diagnostics, the client pulls (on open and on change) and
      // the pushed copies are dropped so that each problem shows once.
      handleDiagnostics(uri, diagnostics, next) {
        const caps = client && client.initializeResult && client.initializeResult.capabilities;
        if (caps && caps.diagnosticProvider) return;
        next(uri, diagnostics);
      },
    },
  });
}

async function activate(context) {
  output = vscode.window.createOutputChannel('CAKE');
  context.subscriptions.push(output);
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand('cake.restartServer', async () => {
      if (client) await client.stop().catch(() => undefined);
      client = createClient(); // picks up changed settings
      await client.start();
      output.appendLine('cake: language server restarted');
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('cake.serverPath') || event.affectsConfiguration('cake.serverArgs') ||
          event.affectsConfiguration('cake.cuda.enable')) // the documents the client sends change
        vscode.commands.executeCommand('cake.restartServer');
    }),
    { dispose: () => (client ? client.stop() : undefined) },
  );
  try {
    await client.start();
  } catch (error) {
    const { command } = serverOptions();
    vscode.window.showErrorMessage(
      `CAKE: could not start the language server '${command}' (${error.message}); set cake.serverPath.`);
  }
}

async function deactivate() {
  if (client) await client.stop();
  client = undefined;
}

module.exports = { activate, deactivate, serverOptions, serverSettings, summarize, summarizeScore };
