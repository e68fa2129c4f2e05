#!/usr/bin/env python3
"""vsix_test.py - Package editors/vscode with `npm run package` and check the .vsix.

    python3 tests/editors/vscode/vsix_test.py

Builds cake-<version>.vsix into a temporary folder (vsce 3.9.2, offline; the
node_modules of editors/vscode come from `npm ci`, see scripts/setup.sh),
unzips it and checks: the manifest and its contributions (language, grammar,
snippets, commands, settings), the grammar, the client entry point, that the
entry point loads with its dependencies from inside the package, and that no
test files slipped in. Prints the size and the file list.
"""
import json
import os
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
EXT = os.path.join(ROOT, "editors", "vscode")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
    return ok


def main():
    if not os.path.isdir(os.path.join(EXT, "node_modules", "@vscode", "vsce")):
        print("FAIL editors/vscode/node_modules is missing: run scripts/setup.sh (npm ci)")
        return 1
    version = json.load(open(os.path.join(EXT, "package.json")))["version"]
    with tempfile.TemporaryDirectory() as tmp:
        vsix = os.path.join(tmp, f"cake-{version}.vsix")
        subprocess.run(["npm", "run", "--silent", "package", "--", "--out", vsix], cwd=EXT, check=True,
                       stdout=subprocess.DEVNULL)
        if not check(os.path.isfile(vsix), f"npm run package produced cake-{version}.vsix"):
            return 1
        with zipfile.ZipFile(vsix) as z:
            names = set(z.namelist())
            z.extractall(tmp)
            pkg = json.loads(z.read("extension/package.json"))
            manifest = z.read("extension.vsixmanifest").decode()
        print(f"size: {os.path.getsize(vsix)} bytes, {len(names)} files")
        for n in sorted(n for n in names if "/node_modules/" not in n):
            print(f"  {n}")
        modules = sorted({n.split("/")[2] if not n.split("/")[2].startswith("@") else "/".join(n.split("/")[2:4])
                          for n in names if n.startswith("extension/node_modules/")})
        print(f"  extension/node_modules/: {', '.join(modules)}")

        check(f'Id="cake" Version="{version}"' in manifest, "extension.vsixmanifest names cake " + version)
        c = pkg.get("contributes", {})
        check(any(l["id"] == "cake" and ".cake" in l["extensions"] for l in c.get("languages", [])),
              "language cake for .cake files")
        lang = next((l for l in c.get("languages", []) if l["id"] == "cake"), {})
        conf = "extension/" + lang.get("configuration", "").lstrip("./")
        check(conf in names and json.loads(open(os.path.join(tmp, conf)).read())["comments"]["lineComment"] == "//",
              "language-configuration.json with // comments")
        grammar = next((g for g in c.get("grammars", []) if g.get("language") == "cake"), {})
        gpath = "extension/" + grammar.get("path", "").lstrip("./")
        check(gpath in names, f"grammar {gpath} is packaged")
        if gpath in names:
            g = json.load(open(os.path.join(tmp, gpath)))
            check(g.get("scopeName") == grammar.get("scopeName") == "source.cake", "grammar scope source.cake")
        snippets = [("extension/" + s["path"].lstrip("./")) for s in c.get("snippets", [])]
        check(snippets and all(s in names for s in snippets), "snippets are packaged")
        if snippets and snippets[0] in names:
            prefixes = {v["prefix"] for v in json.load(open(os.path.join(tmp, snippets[0]))).values()}
            check({"kernel", "role", "ring", "for", "wgmma"} <= prefixes, "snippets kernel/role/ring/for/wgmma")
        commands = {x["command"] for x in c.get("commands", [])}
        check({"cake.compile", "cake.run", "cake.bench", "cake.restartServer"} <= commands,
              "commands cake.compile/run/bench/restartServer")
        props = c.get("configuration", {}).get("properties", {})
        check({"cake.serverPath", "cake.serverArgs"} <= set(props), "settings cake.serverPath and cake.serverArgs")
        main_js = "extension/" + pkg.get("main", "").lstrip("./")
        check(main_js in names, f"client entry point {main_js} is packaged")
        check("extension/node_modules/vscode-languageclient/node.js" in names, "vscode-languageclient is packaged")
        check(not any(n.startswith("extension/test/") or n.endswith(".vsix") for n in names),
              "no tests or packages inside the package")
        loaded = subprocess.run(["node", os.path.join(HERE, "load_extension.js"), os.path.join(tmp, "extension")],
                                capture_output=True, text=True)
        ok = loaded.returncode == 0 and '"LanguageClient":"function"' in loaded.stdout and "activate" in loaded.stdout
        check(ok, "the entry point loads from inside the package: "
              + (loaded.stdout.strip() if ok else loaded.stdout + loaded.stderr))
    print(f"{len(failures) == 0 and 'all checks passed' or str(len(failures)) + ' check(s) failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
