//===- TargetsCommand.cpp - `cake targets` --------------------------------===//
//
// Prints the target descriptions (compiler/target/Target.cpp), the one place
// that knows a GPU's numbers, so that scripts and agents read them from there
// instead of copying them.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "compiler/sema/Ops.h"
#include "compiler/target/Target.h"

#include <cxxopts.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

namespace cake::cli {
namespace {

nlohmann::ordered_json describe(const TargetDesc &t) {
  nlohmann::ordered_json mma = nlohmann::ordered_json::array();
  for (const MmaContract &c : t.mma) // the operation each family's contract governs
    mma.push_back(std::string(sema::opInfo(c.family == MmaFamily::Sync    ? sema::OpId::MmaSync
                                           : c.family == MmaFamily::Wgmma ? sema::OpId::WgmmaMma
                                                                          : sema::OpId::Tcgen05Mma)
                                  .name));
  return {{"name", t.name},
          {"example", t.example},
          {"warpSize", t.warpSize},
          {"maxThreadsPerBlock", t.maxThreadsPerBlock},
          {"maxClusterSize", t.maxClusterSize},
          {"namedBarriers", t.namedBarriers},
          {"maxGrid", {t.maxGridX, t.maxGridYZ, t.maxGridYZ}},
          {"smemPerBlock", t.smemPerBlock},
          {"registersPerSm", t.registersPerSm},
          {"maxRegsPerThread", t.maxRegsPerThread},
          {"setmaxnreg", {{"min", t.setmaxnregMin}, {"max", t.setmaxnregMax}, {"step", t.setmaxnregStep}}},
          {"tmemColumns", t.tmemColumns},
          {"tmemLanes", t.tmemLanes},
          {"tmaMaxRank", t.tmaMaxRank},
          {"tmaMaxBoxDim", t.tmaMaxBoxDim},
          {"tmaAlignBytes", t.tmaAlignBytes},
          {"mbarrierBytes", t.mbarrierBytes},
          {"smCount", t.smCount},
          {"dramBytesPerSecond", t.dramBytesPerSecond},
          {"bf16DenseFlopsPerSecond", t.bf16DenseFlopsPerSecond},
          {"mma", mma}};
}

} // namespace

int runTargets(int argc, char **argv) {
  cxxopts::Options o("cake targets", "List the targets and the numbers CAKE knows about each (text or json).");
  o.add_options()("format", "text or json", cxxopts::value<std::string>()->default_value("text"))(
      "h,help", "Show this help");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json") {
    std::cerr << "cake targets: unknown format '" << shown(format) << "' (expected text or json)\n";
    return UsageError;
  }
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (Target t : {Target::SM80, Target::SM90a, Target::SM100a})
    all.push_back(describe(targetDesc(t)));
  if (format == "json") {
    std::cout << nlohmann::ordered_json{{"version", 1}, {"targets", all}}.dump(2) << "\n";
    return Success;
  }
  for (const auto &t : all) {
    std::cout << t["name"].get<std::string>() << " (" << t["example"].get<std::string>() << ")\n";
    for (const auto &[key, value] : t.items())
      if (key != "name" && key != "example")
        std::cout << "  " << key << ": " << value.dump() << "\n";
  }
  return Success;
}

} // namespace cake::cli
