//===- Pipeline.cpp - A KMeans variant's kernels, checked and launched ----===//
#include "lib/kmeans/Pipeline.h"

#include "lib/kmeans/Embedded.h"

#include <algorithm>

namespace cake::kmeans {

sema::Elem elemOf(DType t) {
  switch (t) {
  case DType::BF16:
    return sema::Elem::BF16;
  case DType::F16:
    return sema::Elem::FP16;
  case DType::F32:
    break;
  }
  return sema::Elem::FP32;
}

Status preparePipeline(const Variant &v, const Problem &p, std::vector<TensorSpec> tensors, Pipeline &out) {
  out = Pipeline{};
  const EmbeddedFile *embedded = findEmbedded(v.file);
  if (!embedded)
    return notAvailable("this build of libcake_kmeans has no " + std::string(opName(v.op)) +
                        " kernels: kernels/kmeans/" + std::string(v.file) +
                        ".cake did not exist when it was built (rebuild the library once it does)");
  libcore::PipelineSpec spec;
  spec.name = v.name;
  spec.embedded = embedded;
  spec.manifest = &embeddedManifest();
  spec.zeroKernel = v.zeroKernel;
  spec.kernels = v.kernels;
  spec.scratch = v.scratch;
  const bool distances =
      std::any_of(tensors.begin(), tensors.end(), [](const TensorSpec &t) { return t.name == "dist"; });
  if (distances) {
    if (v.distanceKernel.empty())
      return unsupported("variant '" + std::string(v.name) + "' cannot compute the distances");
    spec.kernels.push_back(v.distanceKernel);
  }
  int64_t KP = (p.K + v.kPad - 1) / v.kPad * v.kPad;
  spec.sizes = {{"B", p.B}, {"N", p.N}, {"K", p.K}, {"D", p.D}, {"KP", KP}};
  return libcore::preparePipeline(spec, std::move(tensors), out);
}

Status openDevice(std::initializer_list<Located> tensors, runner::Stream stream, Device *&out) {
  return libcore::openDevice(tensors, stream, kTimeoutVariable, out);
}

} // namespace cake::kmeans
