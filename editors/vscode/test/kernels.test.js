// test/kernels.test.js - The grammar over every bundled kernel (kernels/**/*.cake).
//
// Tokenizes each file with vscode-textmate (the engine VS Code uses) and checks
// that no token is marked invalid, that every line ends outside a string, and
// that every `family.op(` call is scoped as an operation.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const textmate = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.resolve(__dirname, '..', '..', '..');
const grammarPath = path.join(__dirname, '..', 'syntaxes', 'cake.tmLanguage.json');

function cakeFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return cakeFiles(p);
    return e.name.endsWith('.cake') ? [p] : [];
  });
}

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () => textmate.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath),
  });
  return registry.loadGrammar('source.cake');
}

test('bundled kernels tokenize cleanly', async () => {
  const grammar = await loadGrammar();
  const files = cakeFiles(path.join(root, 'kernels'));
  assert.ok(files.length > 0, 'no kernels found under kernels/');
  let ops = 0;
  for (const file of files) {
    let state = textmate.INITIAL;
    fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const where = `${path.relative(root, file)}:${i + 1}`;
      const { tokens, ruleStack } = grammar.tokenizeLine(line, state);
      state = ruleStack;
      for (const t of tokens) {
        const text = line.slice(t.startIndex, t.endIndex);
        assert.ok(!t.scopes.some((s) => s.startsWith('invalid')), `${where}: '${text}' is invalid: ${t.scopes}`);
        if (t.scopes.includes('support.function.operation.cake')) ops++;
      }
      for (const m of line.replace(/\/\/.*$/, '').matchAll(/\b(tma|wgmma|math|ld|st|cp|mma)\.([a-z_0-9]+)\(/g)) {
        const tok = tokens.find((t) => t.startIndex === m.index + m[1].length + 1);
        assert.ok(tok && tok.scopes.includes('support.function.operation.cake'), `${where}: ${m[0]} not an operation`);
      }
      const last = tokens[tokens.length - 1];
      assert.ok(!last || !last.scopes.some((s) => s.startsWith('string')), `${where}: string runs past the line`);
    });
  }
  assert.ok(ops > 50, `only ${ops} operations found`);
});
