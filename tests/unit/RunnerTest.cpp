//===- RunnerTest.cpp - The runner's GPU-free parts -----------------------===//
//
// ptxas reports and front-end logs captured from NVRTC and nvcc 13.0 (and
// the older formats of CUDA 11/12), their mapping to Diagnostics through
// #line and .loc, an NVRTC build of a tiny kernel, timing statistics,
// parameter packing and tensor-map validation. Nothing here needs a GPU.
//
//===----------------------------------------------------------------------===//
#include "compiler/runner/Runner.h"
#include "compiler/runner/Build.h"
#include "compiler/driver/Check.h"
#include "compiler/runner/LaunchLowered.h"
#include "compiler/runner/Process.h"
#include "diagnostics/TextRenderer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace cake;
using namespace cake::runner;

namespace {

// NVRTC 13.0, --gpu-architecture=sm_90a --ptxas-options=-v --maxrregcount=32,
// with one kernel that spills and a warp-specialized one.
constexpr const char *kNvrtcReport =
    R"(ptxas info    : Overriding maximum register limit 256 for '_Z2spPfPKfi' with  32 of maxrregcount option
ptxas info    : Overriding global maxrregcount 32 with entry-specific value 168 computed using thread count
ptxas warning : Registers are spilled to local memory in function '_Z2spPfPKfi', 472 bytes spill stores, 472 bytes spill loads
ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at entry.
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z2spPfPKfi' for 'sm_90a'
ptxas info    : Function properties for _Z2spPfPKfi
ptxas         .     288 bytes stack frame, 472 bytes spill stores, 472 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 288 bytes cumulative stack size
ptxas info    : Compile time = 126.814 ms
ptxas info    : Compiling entry function '_Z2wsPf' for 'sm_90a'
ptxas info    : Function properties for _Z2wsPf
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compile time = 32.496 ms
)";

// nvcc 13.0 prints the properties without the "ptxas ." prefix; ptxas errors.
constexpr const char *kNvccReport =
    R"(ptxas error   : Entry function '_Z3bigPf' uses too much shared data (0x4e200 bytes, 0x38c00 max)
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z3bigPf' for 'sm_90a'
ptxas info    : Function properties for _Z3bigPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 1 barriers, 320000 bytes smem
)";

// CUDA 11: constant banks, no barrier count, a device function with its own
// properties, lmem.
constexpr const char *kOldReport = R"(ptxas info    : 8 bytes gmem
ptxas info    : Function properties for _Z6helperi
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'vadd' for 'sm_80'
ptxas info    : Function properties for vadd
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, 380 bytes cmem[0], 8 bytes cmem[2], 16 bytes lmem
)";

TEST(PtxasReport, Nvrtc13) {
  PtxasReport r = parsePtxasLog(kNvrtcReport);
  ASSERT_EQ(r.functions.size(), 2u);
  const PtxasFunction &sp = r.functions[0];
  EXPECT_EQ(sp.name, "_Z2spPfPKfi");
  EXPECT_EQ(sp.demangled, "sp(float*, float const*, int)");
  EXPECT_TRUE(sp.entry);
  EXPECT_EQ(sp.arch, "sm_90a");
  EXPECT_EQ(sp.registers, 32);
  EXPECT_EQ(sp.barriers, 0);
  EXPECT_EQ(sp.stackFrame, 288u);
  EXPECT_EQ(sp.spillStores, 472u);
  EXPECT_EQ(sp.spillLoads, 472u);
  EXPECT_EQ(sp.cumulativeStack, 288u);
  EXPECT_TRUE(sp.spills());
  EXPECT_NEAR(sp.compileTimeMs, 126.814, 1e-9);
  const PtxasFunction &ws = r.functions[1];
  EXPECT_EQ(ws.registers, 168);
  EXPECT_EQ(ws.barriers, 1);
  EXPECT_EQ(ws.sharedBytes, 1024u);
  EXPECT_FALSE(ws.spills());
  EXPECT_EQ(r.find("ws"), &ws);
  EXPECT_EQ(r.find("_Z2wsPf"), &ws);
  EXPECT_EQ(r.entries().size(), 2u);

  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].severity, Severity::Warning);
  EXPECT_NE(r.messages[0].text.find("Registers are spilled"), std::string::npos);
  EXPECT_EQ(r.messages[1].severity, Severity::Remark);
  EXPECT_EQ(r.messages[1].id, "C7508");
  EXPECT_EQ(r.messages[1].text,
            "Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at entry.");
}

TEST(PtxasReport, NvccFormatAndErrors) {
  PtxasReport r = parsePtxasLog(kNvccReport);
  ASSERT_EQ(r.functions.size(), 1u);
  EXPECT_EQ(r.functions[0].registers, 12);
  EXPECT_EQ(r.functions[0].sharedBytes, 320000u);
  EXPECT_EQ(r.functions[0].stackFrame, 0u);
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].severity, Severity::Error);
  EXPECT_EQ(r.messages[0].text, "Entry function '_Z3bigPf' uses too much shared data (0x4e200 bytes, 0x38c00 max)");
}

TEST(PtxasReport, OlderFormats) {
  PtxasReport r = parsePtxasLog(kOldReport);
  EXPECT_EQ(r.globalBytes, 8u);
  ASSERT_EQ(r.functions.size(), 2u);
  const PtxasFunction &helper = r.functions[0];
  EXPECT_FALSE(helper.entry);
  EXPECT_EQ(helper.demangled, "helper(int)");
  EXPECT_EQ(helper.spillStores, 8u);
  EXPECT_EQ(helper.spillLoads, 4u);
  const PtxasFunction &vadd = r.functions[1];
  EXPECT_TRUE(vadd.entry);
  EXPECT_EQ(vadd.arch, "sm_80");
  EXPECT_EQ(vadd.registers, 12);
  EXPECT_EQ(vadd.barriers, -1);
  EXPECT_EQ(vadd.localBytes, 16u);
  EXPECT_EQ(vadd.constantBanks.at(0), 380u);
  EXPECT_EQ(vadd.constantBanks.at(2), 8u);
}

TEST(PtxasReport, PtxLineErrors) {
  PtxasReport r = parsePtxasLog("ptxas application ptx input, line 55; error   : Unknown modifier '.instr'\n"
                                "ptxas /tmp/cake-build-x/out.ptx, line 56; warning : Unused parameter\n"
                                "ptxas fatal   : Ptx assembly aborted due to errors\n");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[0].ptxFile, "application ptx input");
  EXPECT_EQ(r.messages[0].ptxLine, 55u);
  EXPECT_EQ(r.messages[0].severity, Severity::Error);
  EXPECT_EQ(r.messages[0].text, "Unknown modifier '.instr'");
  EXPECT_EQ(r.messages[1].ptxFile, "/tmp/cake-build-x/out.ptx");
  EXPECT_EQ(r.messages[1].severity, Severity::Warning);
  EXPECT_EQ(r.messages[2].severity, Severity::Error);
  EXPECT_EQ(r.messages[2].ptxLine, 0u);
}

// NVRTC 13.0 on a source with #line 7 "k.cake" before a type error.
constexpr const char *kFrontEndLog =
    R"(k.cake(7): error: a value of type "const char *" cannot be used to initialize an entity of type "int"
      int x = "hello";
              ^

k.cake(9): error: no instance of overloaded function "f" matches the argument list
            argument types are: (int *)
    f(p);
    ^
          detected during instantiation of "void g<T>() [with T=int]" at line 12

nowhere.cake(12): warning #177-D: variable "unused" was declared but never referenced
  __global__ void w(float *o) { int unused; o[0] = 1; }
                                    ^

Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"

2 errors detected in the compilation of "bad.cu".
)";

TEST(FrontEndLog, MessagesCaretsAndNotes) {
  std::vector<FrontEndMessage> m = parseFrontEndLog(kFrontEndLog);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].file, "k.cake");
  EXPECT_EQ(m[0].line, 7u);
  EXPECT_EQ(m[0].severity, Severity::Error);
  EXPECT_EQ(m[0].sourceLine, "    int x = \"hello\";");
  EXPECT_EQ(m[0].caret, 12);
  EXPECT_TRUE(m[0].notes.empty());
  EXPECT_EQ(m[1].line, 9u);
  EXPECT_EQ(m[1].sourceLine, "  f(p);");
  EXPECT_EQ(m[1].caret, 2);
  ASSERT_EQ(m[1].notes.size(), 2u);
  EXPECT_EQ(m[1].notes[0], "argument types are: (int *)");
  EXPECT_EQ(m[1].notes[1], "detected during instantiation of \"void g<T>() [with T=int]\" at line 12");
  EXPECT_EQ(m[2].file, "nowhere.cake");
  EXPECT_EQ(m[2].severity, Severity::Warning);
  EXPECT_EQ(m[2].number, "177-D");
  EXPECT_EQ(m[2].text, "variable \"unused\" was declared but never referenced");
  EXPECT_TRUE(unlocatedErrors(kFrontEndLog).empty());
}

TEST(FrontEndLog, UnlocatedErrors) {
  std::string log = "nvcc fatal   : Unsupported gpu architecture 'compute_99'\n"
                    "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
                    "ptxas info    : 0 bytes gmem\n";
  std::vector<std::string> e = unlocatedErrors(log);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], "nvcc fatal   : Unsupported gpu architecture 'compute_99'");
  EXPECT_EQ(e[1], "nvrtc: error: invalid value for --gpu-architecture (-arch)");
  EXPECT_TRUE(parseFrontEndLog(log).empty());
}

TEST(LineMap, DirectivesAndInheritedFile) {
  LineMap map("int a;\n"             // 1
              "#line 7 \"k.cake\"\n" // 2
              "x\n"                  // 3 -> k.cake:7
              "y\n"                  // 4 -> k.cake:8
              "# 20 \"o.cake\"\n"    // 5
              "z\n"                  // 6 -> o.cake:20
              "  #line 30\n"         // 7
              "w\n");                // 8 -> o.cake:30
  EXPECT_EQ(map.map(1).file, "");
  EXPECT_EQ(map.map(1).line, 1u);
  EXPECT_EQ(map.map(3).file, "k.cake");
  EXPECT_EQ(map.map(3).line, 7u);
  EXPECT_EQ(map.map(4).line, 8u);
  EXPECT_EQ(map.map(6).file, "o.cake");
  EXPECT_EQ(map.map(6).line, 20u);
  EXPECT_EQ(map.map(8).file, "o.cake");
  EXPECT_EQ(map.map(8).line, 30u);
  EXPECT_TRUE(LineMap("#include <x>\n#pragma once\n").empty());
}

constexpr const char *kPtx = R"(.version 9.0
.target sm_90a
.visible .entry _Z1kPf(
	.param .u64 _Z1kPf_param_0
)
{
	.loc	1 1 0
	mov.u32 	%r1, 1;
	.loc	2 4 2
	bogus.instr %r1;
	.loc	2 5 1, function_name $L__info_string0, inlined_at 1 1 3
	ret;
}
	.file	1 "/tmp/rx/x.cu"
	.file	2 "/tmp/rx/k.cake", 1700000000, 120
)";

TEST(PtxLocMap, LocsAndFiles) {
  PtxLocMap map(kPtx);
  EXPECT_EQ(map.map(3).file, "");
  EXPECT_EQ(map.map(8).file, "/tmp/rx/x.cu");
  EXPECT_EQ(map.map(8).line, 1u);
  EXPECT_EQ(map.map(10).file, "/tmp/rx/k.cake");
  EXPECT_EQ(map.map(10).line, 4u);
  EXPECT_EQ(map.map(10).column, 2u);
  EXPECT_EQ(map.map(12).line, 5u);
}

TEST(Names, BaseNameAndKernelLine) {
  EXPECT_EQ(baseName("vadd"), "vadd");
  EXPECT_EQ(baseName("_Z5spillPfi"), "spill");
  EXPECT_EQ(baseName("_ZN2ns4gemmILi128EEEvPKfPf"), "gemm");
  std::string src = "__device__ float helper(float x) { return x; }\n"
                    "template <int N>\n"
                    "__global__ void __launch_bounds__(128, 1)\n"
                    "gemm(const float *a, float *b) { helper(1); }\n"
                    "extern \"C\" __global__ void vadd(float *c) {}\n";
  EXPECT_EQ(findKernelLine(src, "_ZN2ns4gemmILi128EEEvPKfPf"), 4u);
  EXPECT_EQ(findKernelLine(src, "vadd"), 5u);
  EXPECT_EQ(findKernelLine(src, "_Z6helperf"), 1u);
  EXPECT_EQ(findKernelLine(src, "missing"), 0u);
}

/// A SourceManager holding the generated CUDA and the IR it came from.
struct Sources {
  SourceManager sm;
  FileId cu, ir;
  Sources() {
    ir = sm.addBuffer("k.cake", "line1\nline2\nline3\nkernel sp\nline5\nline6\n    int x = \"hello\";\n"
                                "line8\n  f(p);\n  warpgroup regs(232)\nline11\nline12\n");
    cu = sm.addBuffer("k.cu", "#include <x.h>\n"
                              "#line 4 \"k.cake\"\n"
                              "__global__ void sp(float *out) {\n" // k.cake:4
                              "#line 10 \"k.cake\"\n"
                              "  asm volatile(\"setmaxnreg.inc.sync.aligned.u32 232;\");\n" // k.cake:10
                              "}\n");
  }
  std::string render(const std::vector<Diagnostic> &diags) {
    std::ostringstream os;
    renderText(os, sm, diags, TextStyle{});
    return os.str();
  }
};

TEST(LogMapper, FrontEndToIrLines) {
  Sources s;
  LogMapper mapper(s.sm);
  std::vector<Diagnostic> d = mapper.mapFrontEnd(kFrontEndLog);
  ASSERT_EQ(d.size(), 3u);
  // The caret lines up: k.cake:7 holds the text the front end printed.
  EXPECT_EQ(d[0].code, "cuda.error");
  EXPECT_EQ(d[0].severity, Severity::Error);
  EXPECT_EQ(d[0].range.file, s.ir);
  LineColumn lc = s.sm.lineColumn(s.ir, d[0].range.begin);
  EXPECT_EQ(lc.line, 7u);
  EXPECT_EQ(lc.column, 13u);
  // The identifier at the caret.
  EXPECT_EQ(s.sm.text(s.ir).substr(d[1].range.begin, d[1].range.size()), "f");
  ASSERT_EQ(d[1].notes.size(), 2u);
  EXPECT_FALSE(d[1].notes[0].range.valid());
  EXPECT_EQ(s.sm.lineColumn(s.ir, d[1].notes[1].range.begin).line, 12u);
  // A file that is nowhere: a stand-in, printed as file:line without a source line.
  EXPECT_EQ(d[2].code, "cuda.warning");
  EXPECT_EQ(d[2].severity, Severity::Warning);
  EXPECT_EQ(d[2].message, "variable \"unused\" was declared but never referenced (#177-D)");
  EXPECT_FALSE(s.sm.hasText(d[2].range.file));
  EXPECT_EQ(s.sm.name(d[2].range.file), "nowhere.cake");
  std::string text = s.render(d);
  EXPECT_NE(text.find("k.cake:7:13: error: a value of type"), std::string::npos) << text;
  EXPECT_NE(text.find("    int x = \"hello\";\n            ^\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nowhere.cake:12: warning: variable \"unused\" was declared but never referenced (#177-D) "
                      "[cuda.warning]\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("__global__ void w"), std::string::npos) << "no source line for a stand-in: " << text;
}

TEST(LogMapper, LoaderReadsNamedFiles) {
  SourceManager sm;
  int calls = 0;
  LogMapper mapper(sm, [&](const std::string &name) -> std::optional<std::string> {
    ++calls;
    if (name == "k.cake")
      return std::string("a\nb\nc\nd\ne\nf\n    int x = \"hello\";\n");
    return std::nullopt;
  });
  std::vector<Diagnostic> d = mapper.mapFrontEnd(kFrontEndLog);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_TRUE(sm.hasText(d[0].range.file));
  EXPECT_EQ(sm.lineColumn(d[0].range.file, d[0].range.begin).column, 13u);
  EXPECT_EQ(d[0].range.file, d[1].range.file) << "one buffer per name";
  EXPECT_EQ(calls, 2); // k.cake and nowhere.cake, once each
}

TEST(LogMapper, IndentationDiffersColumnStillFound) {
  SourceManager sm;
  FileId f = sm.addBuffer("k.cake", "1\n2\n3\n4\n5\n6\n\tint x = \"hello\";\n");
  LogMapper mapper(sm);
  std::vector<Diagnostic> d = mapper.mapFrontEnd(kFrontEndLog);
  EXPECT_EQ(sm.lineColumn(f, d[0].range.begin).column, 10u); // tab + 'int x = ' -> the quote
}

TEST(LogMapper, PtxasSpillsSetmaxnregAndPtxLines) {
  Sources s;
  LogMapper mapper(s.sm);
  std::vector<Diagnostic> d = mapper.mapPtxas(parsePtxasLog(kNvrtcReport), "", s.cu);
  sortDiagnostics(d);
  ASSERT_EQ(d.size(), 2u) << s.render(d);
  // The spill, at the kernel's name on the IR line its declaration maps to.
  const Diagnostic &spill = d[0];
  EXPECT_EQ(spill.code, "ptxas.spill");
  EXPECT_EQ(spill.severity, Severity::Warning);
  EXPECT_EQ(spill.message, "kernel 'sp' spills registers to local memory: 472 bytes stored, 472 bytes loaded "
                           "(32 registers, 288-byte stack frame)");
  EXPECT_EQ(spill.range.file, s.ir);
  EXPECT_EQ(s.sm.lineColumn(s.ir, spill.range.begin).line, 4u);
  EXPECT_EQ(s.sm.text(s.ir).substr(spill.range.begin, spill.range.size()), "sp");
  // setmaxnreg: at the IR line of the first setmaxnreg.
  const Diagnostic &smn = d[1];
  EXPECT_EQ(smn.code, "ptxas.setmaxnreg");
  EXPECT_EQ(smn.message, "ptxas ignored setmaxnreg: unable to determine register count at entry (C7508)");
  EXPECT_EQ(s.sm.lineColumn(s.ir, smn.range.begin).line, 10u);

  // A ptxas error naming a PTX line lands on the line its .loc names.
  SourceManager sm2;
  FileId ir2 = sm2.addBuffer("/tmp/rx/k.cake", "1\n2\n3\n  asm(\"bogus.instr\")\n5\n");
  LogMapper m2(sm2);
  PtxasReport err = parsePtxasLog("ptxas application ptx input, line 10; error   : Unknown modifier '.instr'\n"
                                  "ptxas fatal   : Ptx assembly aborted due to errors\n");
  std::vector<Diagnostic> e = m2.mapPtxas(err, kPtx, {});
  ASSERT_EQ(e.size(), 1u) << "the fatal summary is dropped";
  EXPECT_EQ(e[0].code, "cuda.error");
  EXPECT_EQ(e[0].message, "ptxas: Unknown modifier '.instr'");
  EXPECT_EQ(e[0].range.file, ir2);
  EXPECT_EQ(sm2.lineColumn(ir2, e[0].range.begin).line, 4u);
  EXPECT_EQ(sm2.text(ir2).substr(e[0].range.begin, e[0].range.size()), "asm(\"bogus.instr\")");
  ASSERT_EQ(e[0].notes.size(), 1u);
  EXPECT_EQ(e[0].notes[0].message, "at line 10 of the PTX");
}

// NVRTC 13 drops ptxas's fatal lines; rerun as a program, ptxas names only
// the register count that failed (issue #14): the diagnostic goes to the role
// whose setmaxnreg asked for it, and the "aborted" summary is dropped.
TEST(LogMapper, PtxasRegisterAllocationFailureAtTheRole) {
  Sources s;
  LogMapper mapper(s.sm);
  PtxasReport r = parsePtxasLog("ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are "
                                "serialized due to insufficient register resources for the function 'sp'\n"
                                "ptxas fatal   : (C7600) Register allocation failed with register count of '232'. "
                                "Compile the program with a higher register target\n"
                                "ptxas fatal   : Ptx assembly aborted due to errors\n");
  std::vector<Diagnostic> d = mapper.mapPtxas(r, "", s.cu);
  sortDiagnostics(d);
  ASSERT_EQ(d.size(), 2u) << s.render(d);
  EXPECT_EQ(d[0].code, "ptxas.wgmma-serialized"); // the C7512 remark, at the kernel it names
  EXPECT_EQ(d[0].message, "ptxas serializes the wgmma pipeline of kernel 'sp': insufficient register resources (C7512)");
  EXPECT_EQ(s.sm.lineColumn(s.ir, d[0].range.begin).line, 4u);
  EXPECT_EQ(d[1].code, "cuda.error");
  EXPECT_NE(d[1].message.find("(C7600)"), std::string::npos);
  EXPECT_EQ(d[1].range.file, s.ir);
  EXPECT_EQ(s.sm.lineColumn(s.ir, d[1].range.begin).line, 10u) << "the role with regs(232)";
  ASSERT_EQ(d[1].notes.size(), 1u);
  // A count no setmaxnreg names stays unlocated rather than misplaced.
  PtxasReport other = parsePtxasLog("ptxas fatal   : (C7600) Register allocation failed with register count of "
                                    "'23'. Compile the program with a higher register target\n");
  std::vector<Diagnostic> e = mapper.mapPtxas(other, "", s.cu);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_FALSE(e[0].range.valid());
}

TEST(Nvrtc, Options) {
  BuildOptions o;
  std::vector<std::string> opts = nvrtcOptions(o);
  auto has = [&](const std::string &x) { return std::find(opts.begin(), opts.end(), x) != opts.end(); };
  EXPECT_TRUE(has("--gpu-architecture=sm_90a"));
  EXPECT_TRUE(has("-std=c++17"));
  EXPECT_TRUE(has("-I/usr/local/cuda/include"));
  EXPECT_TRUE(has("-I/usr/local/cuda/include/cccl"));
  EXPECT_TRUE(has("-lineinfo"));
  EXPECT_TRUE(has("--ptxas-options=-v"));
  EXPECT_FALSE(has("-G"));
  o.debug = true;
  o.target = Target::SM100a;
  opts = nvrtcOptions(o);
  EXPECT_TRUE(has("--gpu-architecture=sm_100a"));
  EXPECT_TRUE(has("-G"));
  EXPECT_TRUE(has("-DCAKE_DEBUG"));
  EXPECT_FALSE(has("-lineinfo")) << "ptxas ignores -lineinfo with -G and warns";
}

TEST(Nvrtc, CompilesATinyKernel) {
  if (!nvrtcAvailable())
    GTEST_SKIP() << "built without the CUDA toolkit";
  SourceManager sm;
  FileId f = sm.addBuffer("tiny.cu", "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, "
                                     "int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                     "  if (i < n) c[i] = a[i] + b[i];\n}\n");
  BuildResult r = buildWithNvrtc(sm, f, BuildOptions{});
  ASSERT_TRUE(r.success) << r.log;
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_EQ(r.cubin.substr(0, 4), "\x7f"
                                  "ELF");
  EXPECT_NE(r.ptx.find(".entry vadd"), std::string::npos);
  EXPECT_NE(r.ptx.find(".loc"), std::string::npos) << "-lineinfo";
  const PtxasFunction *k = r.report.find("vadd");
  ASSERT_NE(k, nullptr) << r.log;
  EXPECT_TRUE(k->entry);
  EXPECT_EQ(k->arch, "sm_90a");
  EXPECT_GT(k->registers, 0);
  EXPECT_FALSE(k->spills());
}

TEST(Nvrtc, ErrorsLandOnTheLineDirective) {
  if (!nvrtcAvailable())
    GTEST_SKIP() << "built without the CUDA toolkit";
  SourceManager sm;
  FileId ir = sm.addBuffer("k.cake", "1\n2\n3\n4\n5\n6\nlet x = \"hello\"\n");
  FileId cu = sm.addBuffer("k.cu", "__global__ void k(int *o) {\n#line 7 \"k.cake\"\n  int x = \"hello\";\n"
                                   "  o[0] = x;\n}\n");
  BuildResult r = buildWithNvrtc(sm, cu, BuildOptions{});
  EXPECT_FALSE(r.success);
  ASSERT_EQ(countErrors(r.diagnostics), 1u) << r.log;
  const Diagnostic &d = r.diagnostics[0];
  EXPECT_EQ(d.code, "cuda.error");
  EXPECT_EQ(d.range.file, ir);
  EXPECT_EQ(sm.lineColumn(ir, d.range.begin).line, 7u);
  EXPECT_NE(d.message.find("cannot be used to initialize"), std::string::npos);
}

TEST(Nvrtc, SpillIsAWarningAtTheKernel) {
  if (!nvrtcAvailable())
    GTEST_SKIP() << "built without the CUDA toolkit";
  SourceManager sm;
  FileId cu = sm.addBuffer("sp.cu", R"(__global__ void sp(float *out, const float *in, int n) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = in[i * n + threadIdx.x];
  float s = 0;
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < 64; ++i) s += v[i] * v[(i + 1) % 64] * (float)j;
  }
  out[threadIdx.x] = s;
}
)");
  BuildOptions o;
  o.maxRegisters = 32;
  BuildResult r = buildWithNvrtc(sm, cu, o);
  ASSERT_TRUE(r.success) << r.log;
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.log;
  EXPECT_EQ(r.diagnostics[0].code, "ptxas.spill");
  EXPECT_EQ(sm.lineColumn(cu, r.diagnostics[0].range.begin).line, 1u);
  EXPECT_TRUE(r.report.find("sp")->spills());
}

TEST(Timing, Summary) {
  Timing t = summarizeTimings({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(t.medianMs, 3);
  EXPECT_DOUBLE_EQ(t.minMs, 1);
  EXPECT_DOUBLE_EQ(t.maxMs, 5);
  EXPECT_DOUBLE_EQ(t.meanMs, 3);
  EXPECT_NEAR(t.stddevMs, 1.5811388, 1e-6);
  EXPECT_DOUBLE_EQ(t.p10Ms, 1.4);
  EXPECT_DOUBLE_EQ(t.p90Ms, 4.6);
  EXPECT_NEAR(t.spreadPercent, 100.0 * 3.2 / 3, 1e-9);
  EXPECT_EQ(t.samplesMs, (std::vector<double>{5, 1, 4, 2, 3})) << "samples stay in launch order";
  EXPECT_DOUBLE_EQ(summarizeTimings({2, 4}).medianMs, 3);
  EXPECT_DOUBLE_EQ(summarizeTimings({7}).spreadPercent, 0);
  EXPECT_TRUE(summarizeTimings({}).samplesMs.empty());
}

TEST(KernelParams, NaturalAlignment) {
  KernelParams p;
  p.add(int32_t(7)).add(uint64_t(0x1122334455667788)).add(char('x'));
  TensorMap map;
  map.words[0] = 42;
  p.add(map);
  ASSERT_EQ(p.count(), 4u);
  std::vector<void *> ptrs = p.pointers();
  const std::byte *base = p.data();
  EXPECT_EQ(static_cast<std::byte *>(ptrs[1]) - base, 8);
  EXPECT_EQ(static_cast<std::byte *>(ptrs[2]) - base, 16);
  EXPECT_EQ(static_cast<std::byte *>(ptrs[3]) - base, 128);
  EXPECT_EQ(p.bytes(), 256u);
  EXPECT_EQ(*static_cast<int32_t *>(ptrs[0]), 7);
  EXPECT_EQ(*static_cast<uint64_t *>(ptrs[1]), 0x1122334455667788u);
  EXPECT_EQ(static_cast<TensorMap *>(ptrs[3])->words[0], 42u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptrs[3]) % 128, 0u);
}

TensorMapDesc tile2d(TensorDType t, Swizzle s, uint32_t boxInner) {
  TensorMapDesc d;
  d.dtype = t;
  d.rank = 2;
  d.address = 0x7f0000000000;
  d.dims[0] = 4096;
  d.dims[1] = 4096;
  d.setPackedStrides();
  d.box[0] = boxInner;
  d.box[1] = 64;
  d.swizzle = s;
  return d;
}

TEST(TensorMap, Validation) {
  EXPECT_EQ(validateTensorMap(tile2d(TensorDType::BF16, Swizzle::B128, 64)), "");
  EXPECT_EQ(validateTensorMap(tile2d(TensorDType::F32, Swizzle::B128, 32)), "");
  EXPECT_EQ(validateTensorMap(tile2d(TensorDType::F16, Swizzle::B32, 16)), "");
  EXPECT_EQ(validateTensorMap(tile2d(TensorDType::BF16, Swizzle::None, 256)), "");
  EXPECT_EQ(validateTensorMap(tile2d(TensorDType::BF16, Swizzle::B128, 128)),
            "the box's inner dimension is 256 bytes, more than the 128-byte swizzle span");
  EXPECT_EQ(validateTensorMap(tile2d(TensorDType::BF16, Swizzle::B64, 4)),
            "the box's inner dimension is 8 bytes; it must be a multiple of 16");
  TensorMapDesc d = tile2d(TensorDType::BF16, Swizzle::B128, 64);
  d.address += 8;
  EXPECT_EQ(validateTensorMap(d), "the global address must be 16-byte aligned");
  d = tile2d(TensorDType::BF16, Swizzle::B128, 64);
  d.dims[0] = 4095; // 8190-byte rows
  d.setPackedStrides();
  EXPECT_EQ(validateTensorMap(d), "the stride of dimension 1 is 8190 bytes; it must be a multiple of 16 below 2^40");
  d = tile2d(TensorDType::BF16, Swizzle::B128, 64);
  d.box[1] = 257;
  EXPECT_EQ(validateTensorMap(d), "the box of dimension 1 is 257 elements; it must be 1 to 256");
  d.rank = 6;
  EXPECT_EQ(validateTensorMap(d), "a tensor map has 1 to 5 dimensions, not 6");
  // Regression (H200): a 5-D box of 256 KiB was refused by the driver; it
  // must not fit the shared memory it lands in.
  d = tile2d(TensorDType::BF16, Swizzle::B64, 32);
  d.rank = 5;
  for (int i = 2; i < 5; ++i) {
    d.dims[i] = 16;
    d.box[i] = 8;
  }
  d.box[1] = 8;
  d.setPackedStrides();
  EXPECT_EQ(validateTensorMap(d), "the box is 262144 bytes, more than the 232448 bytes of shared memory it must land in");
  d.box[4] = 4;
  EXPECT_EQ(validateTensorMap(d), "");
  // 5D, packed.
  TensorMapDesc five;
  five.dtype = TensorDType::F32;
  five.rank = 5;
  for (int i = 0; i < 5; ++i) {
    five.dims[i] = 8;
    five.box[i] = 4;
  }
  five.setPackedStrides();
  five.swizzle = Swizzle::None;
  EXPECT_EQ(five.strides[4], 4u * 8 * 8 * 8 * 8);
  EXPECT_EQ(validateTensorMap(five), "");
}

TEST(Runner, DeviceTargets) {
  DeviceInfo d;
  d.major = 9;
  EXPECT_EQ(d.cakeTarget(), "sm_90a");
  d.major = 10;
  EXPECT_EQ(d.cakeTarget(), "sm_100a");
  d.major = 8;
  d.minor = 6;
  EXPECT_EQ(d.cakeTarget(), "sm_80");
  d.major = 7;
  EXPECT_EQ(d.cakeTarget(), "");
}

TEST(Runner, NoDriverIsOneClearSentence) {
  // The driver is loaded once per process; this is the only test that asks.
  setenv("CAKE_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  auto r = makeRunner();
  unsetenv("CAKE_LIBCUDA");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().noGpu());
  std::string sentence = describeNoGpu(r.error());
  EXPECT_EQ(sentence.rfind("no CUDA GPU is available on this machine (", 0), 0u) << sentence;
  if (nvrtcAvailable()) // a build with the toolkit names the library it tried
    EXPECT_NE(sentence.find("/nonexistent/libcuda.so.1"), std::string::npos) << sentence;
  EXPECT_EQ(sentence.find('\n'), std::string::npos);
}

} // namespace

//===-- LaunchLowered: from a lowered kernel to a launch, without a GPU ----===//

namespace {

struct LoweredAssign {
  SourceManager sm;
  CheckResult check;
  lower::LoweredModule module;
};

std::unique_ptr<LoweredAssign> lowerAssign() {
  auto l = std::make_unique<LoweredAssign>();
  std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/kernels/kmeans/assign_sm90.cake");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  FileId file = l->sm.addBuffer("assign_sm90.cake", text);
  l->check = checkSource(l->sm, file);
  std::vector<Diagnostic> diags;
  if (l->check.model)
    l->module = lower::lowerModule(l->sm, file, *l->check.model, diags);
  EXPECT_EQ(countErrors(l->check.diagnostics) + countErrors(diags), 0u);
  return l;
}

} // namespace

TEST(LaunchLowered, PlansEveryParameterInOrder) {
  auto l = lowerAssign();
  const lower::LoweredKernel *k = l->module.kernel("kmeans_assign_sm90");
  ASSERT_NE(k, nullptr);
  Buffers buffers = {{"x", 0x10000}, {"c", 0x20000}, {"cn", 0x30000}, {"ids", 0x40000}};
  lower::Bindings sizes = {{"B", 2}, {"N", 300}, {"K", 200}, {"D", 128}, {"KP", 256}};
  auto planned = planLowered(*k, buffers, sizes, 132);
  ASSERT_TRUE(planned) << planned.error().message;
  const LaunchPlan &plan = *planned;
  ASSERT_EQ(plan.args.size(), k->args.size());
  for (size_t i = 0; i < plan.args.size(); ++i)
    EXPECT_EQ(plan.args[i].kind, k->args[i].kind) << i;
  // x: bf16 [B, N, 128] with the plan's box, innermost first, packed strides
  auto x = std::find_if(plan.args.begin(), plan.args.end(), [](const PlannedArg &a) {
    return a.kind == lower::KernelArg::TensorMap && a.name == "x";
  });
  ASSERT_NE(x, plan.args.end());
  EXPECT_EQ(x->map.dtype, TensorDType::BF16);
  EXPECT_EQ(x->map.rank, 3u);
  EXPECT_EQ(x->map.address, 0x10000u);
  EXPECT_EQ(x->map.dims[0], 128u);
  EXPECT_EQ(x->map.dims[1], 300u);
  EXPECT_EQ(x->map.dims[2], 2u);
  EXPECT_EQ(x->map.strides[1], 256u);
  EXPECT_EQ(x->map.strides[2], 300u * 256);
  EXPECT_EQ(x->map.swizzle, Swizzle::B128);
  for (const PlannedArg &a : plan.args)
    if (a.kind == lower::KernelArg::TensorMap)
      EXPECT_EQ(validateTensorMap(a.map), "") << a.name;
  // persistent: at least one CTA, at most one per SM and occupancy slot
  EXPECT_GE(plan.config.grid.x, 1u);
  EXPECT_LE(plan.config.grid.x, 132u * uint32_t(k->kernel->occupancy));
  EXPECT_EQ(plan.config.block.x, k->block);
  EXPECT_EQ(plan.config.dynamicShared, k->dynamicShared);
  EXPECT_FALSE(plan.needsHangRecord);
  // D is a size: at D = 72 the map covers the caller's rows of 72 (144-byte strides) and the box stays 128
  // wide (TMA fills the columns past D with zeros): no padded copy
  sizes["D"] = 72;
  auto ragged = planLowered(*k, buffers, sizes, 132);
  ASSERT_TRUE(ragged) << ragged.error().message;
  for (const PlannedArg &a : ragged->args)
    if (a.kind == lower::KernelArg::TensorMap && a.name == "x") {
      EXPECT_EQ(a.map.dims[0], 72u);
      EXPECT_EQ(a.map.strides[1], 144u);
      EXPECT_EQ(a.map.box[0], x->map.box[0]);
      EXPECT_EQ(validateTensorMap(a.map), "");
    }
  // a D that is not a multiple of 8 (rows TMA cannot stride) or past the tile: the kernel's facts refuse it
  for (int64_t bad : {100, 136}) {
    sizes["D"] = bad;
    auto refused = planLowered(*k, buffers, sizes, 132);
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("violate the kernel's fact"), std::string::npos) << refused.error().message;
  }
}

TEST(LaunchLowered, SaysWhatIsWrong) {
  auto l = lowerAssign();
  const lower::LoweredKernel *k = l->module.kernel("kmeans_assign_sm90");
  ASSERT_NE(k, nullptr);
  Buffers buffers = {{"x", 0x10000}, {"c", 0x20000}, {"cn", 0x30000}, {"ids", 0x40000}};
  auto unbound = planLowered(*k, buffers, {{"B", 2}, {"N", 300}, {"K", 200}, {"D", 128}}, 132);
  ASSERT_FALSE(unbound);
  EXPECT_EQ(unbound.error().kind, Error::InvalidArgument);
  EXPECT_EQ(unbound.error().message,
            "kernel 'kmeans_assign_sm90': size 'KP' of kernel 'kmeans_assign_sm90' is not bound");
  auto fact = planLowered(*k, buffers, {{"B", 2}, {"N", 300}, {"K", 200}, {"D", 128}, {"KP", 200}}, 132);
  ASSERT_FALSE(fact);
  EXPECT_NE(fact.error().message.find("the sizes violate the kernel's fact"), std::string::npos)
      << fact.error().message;
  Buffers missing = buffers;
  missing.erase("ids");
  auto noBuffer = planLowered(*k, missing, {{"B", 2}, {"N", 300}, {"K", 200}, {"D", 128}, {"KP", 256}}, 132);
  ASSERT_FALSE(noBuffer);
  EXPECT_EQ(noBuffer.error().message, "kernel 'kmeans_assign_sm90': no buffer was given for 'ids'");
  const lower::LoweredKernel *cnorm = l->module.kernel("kmeans_cnorm");
  ASSERT_NE(cnorm, nullptr);
  auto grid = planLowered(*cnorm, buffers, {{"B", 70000}, {"K", 200}, {"D", 128}, {"KP", 256}}, 132);
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.error().message,
            "kernel 'kmeans_cnorm': the grid 32x70000x1 is past the limits 2147483647 x 65535 x 65535");
}

namespace cake::runner {
namespace {

// The language server's cancellation hook: a stop flag set while the child
// runs kills it, and its own children with it (a process group), in well
// under the poll interval of a second.
TEST(Process, StopFlagKillsTheChildAndItsChildren) {
  std::atomic<bool> stop = false;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = runProcess({"sh", "-c", "sleep 30 & echo started; wait"}, 60, &stop);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  stopper.join();
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(r.timedOut);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_NE(r.output.find("started"), std::string::npos);
  // The background sleep held the pipe open: had it survived, the drain
  // would have waited for it.
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(Process, UnsetStopFlagChangesNothing) {
  std::atomic<bool> stop = false;
  ProcessResult r = runProcess({"sh", "-c", "echo hi; exit 3"}, 60, &stop);
  EXPECT_FALSE(r.stopped);
  EXPECT_FALSE(r.timedOut);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.output, "hi\n");
  ProcessResult t = runProcess({"sh", "-c", "sleep 30"}, 0.2, &stop);
  EXPECT_TRUE(t.timedOut);
  EXPECT_FALSE(t.stopped);
}

} // namespace
} // namespace cake::runner
