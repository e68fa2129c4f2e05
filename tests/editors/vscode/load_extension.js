// load_extension.js - require() an unpacked extension's entry point with a stand-in `vscode`.
//
//   node load_extension.js EXTENSION_DIR
//
// Proves that the entry point and its whole require graph (vscode-languageclient
// and its dependencies) are inside the .vsix: modules resolve from EXTENSION_DIR
// only. Prints the entry point's exports and the client class it loads.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const handler = {
  get: (t, k) => (k === '__esModule' ? false : k in t ? t[k] : (t[k] = new Proxy(function () {}, handler))),
  construct: () => new Proxy({}, handler),
  apply: () => new Proxy(function () {}, handler),
};
const vscode = new Proxy({}, handler);
const load = Module._load;
Module._load = function (request, parent, isMain) {
  return request === 'vscode' ? vscode : load.call(this, request, parent, isMain);
};

const dir = path.resolve(process.argv[2]);
const manifest = require(path.join(dir, 'package.json'));
const ext = require(path.join(dir, manifest.main));
const client = require(require.resolve('vscode-languageclient/node', { paths: [dir] }));
if (!require.resolve('vscode-languageclient/node', { paths: [dir] }).startsWith(dir)) throw new Error('client resolved outside the extension');
console.log(JSON.stringify({ exports: Object.keys(ext).sort(), LanguageClient: typeof client.LanguageClient }));
