//===- SarifRenderer.h - Diagnostics as SARIF 2.1.0 ------------*- C++ -*-===//
//
// Part of CAKE. `cake check --format=sarif` prints one SARIF 2.1.0 log with
// one run: the tool driver lists the catalog rules that the diagnostics use
// (ordered by code), and each diagnostic becomes a result whose notes are
// relatedLocations and whose fixes are SARIF fixes.
//
// Columns are counted in Unicode code points (run.columnKind is
// "unicodeCodePoints"); endColumn is exclusive, as SARIF defines it. File
// names become URI references: absolute paths as file:// URIs, anything else
// percent-encoded relative references. Output is deterministic: no clock, no
// environment, keys in a fixed order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"
#include "diagnostics/Source.h"

#include <string>
#include <string_view>
#include <vector>

namespace cake {

/// The SARIF log for \p diags, pretty-printed with a 2-space indent and a
/// trailing newline. \p toolVersion becomes driver.version (left out when
/// empty). \p homeUri, when given, must be absolute (SARIF requires it): it
/// becomes driver.informationUri and rules link to <home>docs/rules/<code>.md;
/// when empty both are left out. Bytes that are not valid UTF-8 are written
/// as U+FFFD.
std::string renderSarif(const SourceManager &sm, const std::vector<Diagnostic> &diags,
                        std::string_view toolVersion, std::string_view homeUri = {});

/// \p path as a SARIF artifact URI: "/a b/k.cake" gives "file:///a%20b/k.cake",
/// "k.cake" stays "k.cake" and "<stdin>" gives "%3Cstdin%3E".
std::string sarifArtifactUri(std::string_view path);

} // namespace cake
