//===- Kda.cpp - The kda.fwd oracle: Kimi Delta Attention forward ---------===//
//
// Part of CAKE. README section 3: the fp32 per-token recurrence, per
// (sequence, head), with the prep the kernel does itself:
//
//   q, k  <- x / sqrt(sum x^2 + 1e-6)              (fla's l2norm, eps 1e-6)
//   beta  <- sigmoid(beta_logit)
//   alpha <- exp(-5 * sigmoid(exp(A_log[h]) * (g + dt_bias[h])))   per channel
//   S     <- Diag(alpha) S;  S <- S + k (beta (v - S^T k))^T
//          = (I - beta k k^T) Diag(alpha) S_prev + beta k v^T
//   o     <- scale * S^T q
//
// S is K x V, starting from h0 (stored [N, H, V, K], i.e. S^T) or zero;
// the final state ht is stored the same way. Assumptions (the README leaves
// them open): the l2norm eps is fla's 1e-6; scale defaults to K^-1/2;
// sequences are the B rows of length T, or with cu_seqlens (B = 1) the
// segments [cu[i], cu[i+1]) of the one row.
//
// Verdict: for every checked (sequence, head), ||o - ref||_2 / ||ref||_2 <=
// rtol (1e-2; fla and FlashKDA agree at 5.6e-3), and the same for ht.
// The recurrence is serial in time, so the sample is of whole (sequence,
// head) pairs, always the first and the last.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/OracleSupport.h"
#include "compiler/oracle/Parallel.h"

#include <cmath>

namespace cake::oracle {

namespace {

struct Segment {
  int64_t row = 0, begin = 0, end = 0; ///< batch row and [begin, end) in time
};

/// Squared differences and squared references of one output, for a relative L2 error.
struct L2 {
  double diff2 = 0, ref2 = 0, worst = -1;
  int64_t worstFlat = -1;
  double worstGot = 0, worstWant = 0;
  void add(double got, double want, int64_t flat) {
    double e = (got - want) * (got - want);
    diff2 += std::isfinite(e) ? e : INFINITY;
    ref2 += want * want;
    if (!(e <= worst)) {
      worst = e;
      worstFlat = flat;
      worstGot = got;
      worstWant = want;
    }
  }
  double rel() const { return ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2); }
};

struct KdaInputs {
  const HostTensor *q, *k, *v, *g, *beta, *aLog, *dtBias, *o, *h0, *ht;
  int64_t B, T, H, K, V;
  double scale;
};

/// Runs the recurrence of (segment s, head h) and compares o and ht.
void runPair(const KdaInputs &in, int64_t seq, const Segment &s, int64_t h, L2 &o, L2 &ht) {
  const int64_t K = in.K, V = in.V, H = in.H;
  std::vector<float> S(size_t(K * V), 0.0f), q(static_cast<size_t>(K)), k(static_cast<size_t>(K)),
      v(static_cast<size_t>(V)), g(static_cast<size_t>(K)), bias(static_cast<size_t>(K)), u(static_cast<size_t>(V)),
      out(static_cast<size_t>(V));
  if (in.h0)
    for (int64_t c = 0; c < K; ++c)
      for (int64_t e = 0; e < V; ++e)
        S[size_t(c * V + e)] = static_cast<float>(in.h0->at(((seq * H + h) * V + e) * K + c));
  decodeRange(*in.dtBias, h * K, K, bias.data());
  const float decay = std::exp(static_cast<float>(in.aLog->at(h)));
  auto l2normalize = [](std::vector<float> &x) {
    float s = 0;
    for (float a : x)
      s += a * a;
    float r = 1.0f / std::sqrt(s + 1e-6f);
    for (float &a : x)
      a *= r;
  };
  for (int64_t t = s.begin; t < s.end; ++t) {
    int64_t token = (s.row * in.T + t) * H + h;
    decodeRange(*in.q, token * K, K, q.data());
    decodeRange(*in.k, token * K, K, k.data());
    decodeRange(*in.g, token * K, K, g.data());
    decodeRange(*in.v, token * V, V, v.data());
    l2normalize(q);
    l2normalize(k);
    float beta = 1.0f / (1.0f + std::exp(-static_cast<float>(in.beta->at(token))));
    std::fill(u.begin(), u.end(), 0.0f);
    for (int64_t c = 0; c < K; ++c) {
      float gate = decay * (g[size_t(c)] + bias[size_t(c)]);
      float alpha = std::exp(-5.0f / (1.0f + std::exp(-gate)));
      float *row = S.data() + c * V;
      for (int64_t e = 0; e < V; ++e) {
        row[e] *= alpha;
        u[size_t(e)] += k[size_t(c)] * row[e]; // (S^T k)
      }
    }
    for (int64_t e = 0; e < V; ++e)
      u[size_t(e)] = beta * (v[size_t(e)] - u[size_t(e)]);
    std::fill(out.begin(), out.end(), 0.0f);
    for (int64_t c = 0; c < K; ++c) {
      float *row = S.data() + c * V;
      for (int64_t e = 0; e < V; ++e) {
        row[e] += k[size_t(c)] * u[size_t(e)];
        out[size_t(e)] += q[size_t(c)] * row[e];
      }
    }
    for (int64_t e = 0; e < V; ++e)
      if (!isPoisonAt(*in.o, token * V + e))
        o.add(in.o->at(token * V + e), in.scale * out[size_t(e)], token * V + e);
  }
  if (in.ht)
    for (int64_t c = 0; c < K; ++c)
      for (int64_t e = 0; e < V; ++e) {
        int64_t flat = ((seq * H + h) * V + e) * K + c;
        if (!isPoisonAt(*in.ht, flat))
          ht.add(in.ht->at(flat), S[size_t(c * V + e)], flat);
      }
}

} // namespace

CheckReport compareKdaFwd(const TensorMap &tensors, const CheckOptions &options) {
  KdaInputs in{find(tensors, "q"),
               find(tensors, "k"),
               find(tensors, "v"),
               find(tensors, "g"),
               find(tensors, "beta"),
               find(tensors, "A_log"),
               find(tensors, "dt_bias"),
               find(tensors, "o"),
               find(tensors, "h0"),
               find(tensors, "ht"),
               0,
               0,
               0,
               0,
               0,
               0};
  for (const HostTensor *t : {in.q, in.k, in.v, in.g, in.beta, in.aLog, in.dtBias, in.o})
    if (Status s = expectFloat(*t); !s)
      return failure(s.error().message);
  if (Status s = expectRank(*in.q, 4, "[B, T, H, K]"); !s)
    return failure(s.error().message);
  if (Status s = expectRank(*in.v, 4, "[B, T, H, V]"); !s)
    return failure(s.error().message);
  in.B = in.q->shape[0];
  in.T = in.q->shape[1];
  in.H = in.q->shape[2];
  in.K = in.q->shape[3];
  in.V = in.v->shape[3];
  const int64_t B = in.B, T = in.T, H = in.H, K = in.K, V = in.V;
  for (const HostTensor *t : {in.k, in.g})
    if (Status s = expectShape(*t, {B, T, H, K}, "[B, T, H, K]"); !s)
      return failure(s.error().message);
  for (const HostTensor *t : {in.v, in.o})
    if (Status s = expectShape(*t, {B, T, H, V}, "[B, T, H, V]"); !s)
      return failure(s.error().message);
  if (Status s = expectShape(*in.beta, {B, T, H}, "[B, T, H]"); !s)
    return failure(s.error().message);
  if (Status s = expectShape(*in.aLog, {H}, "[H]"); !s)
    return failure(s.error().message);
  if (Status s = expectShape(*in.dtBias, {H, K}, "[H, K]"); !s)
    return failure(s.error().message);

  std::vector<Segment> segments;
  if (const HostTensor *cu = find(tensors, "cu_seqlens")) {
    if (B != 1)
      return failure("cu_seqlens needs B = 1, got B = " + std::to_string(B));
    for (int64_t i = 0; i + 1 < cu->elements(); ++i) {
      int64_t b = static_cast<int64_t>(cu->at(i)), e = static_cast<int64_t>(cu->at(i + 1));
      if (b < 0 || e < b || e > T)
        return failure("cu_seqlens" + cu->indexString(i) + " .. [" + std::to_string(i + 1) +
                       "] is not a segment of [0, " + std::to_string(T) + ")");
      segments.push_back({0, b, e});
    }
  } else {
    for (int64_t b = 0; b < B; ++b)
      segments.push_back({b, 0, T});
  }
  const int64_t nseq = static_cast<int64_t>(segments.size());
  for (const HostTensor *t : {in.h0, in.ht})
    if (t)
      if (Status s = expectShape(*t, {nseq, H, V, K}, "[N, H, V, K]"); !s)
        return failure(s.error().message);
  const HostTensor *scaleTensor = find(tensors, "scale");
  in.scale = scaleTensor && scaleTensor->elements() ? scaleTensor->at(0)
             : options.scale != 0                   ? options.scale
                                                    : 1.0 / std::sqrt(double(K));

  int64_t longest = 1;
  for (const Segment &s : segments)
    longest = std::max(longest, s.end - s.begin);
  std::vector<int64_t> pairs =
      sampleIndices(nseq * H, sampleCount(nseq * H, longest * K * V * 3, options, 2), options.seed, {0, nseq * H - 1});
  std::vector<L2> outs(pairs.size()), states(pairs.size());
  parallelChunks(static_cast<int64_t>(pairs.size()), [&](int64_t i) {
    int64_t seq = pairs[size_t(i)] / H, h = pairs[size_t(i)] % H;
    runPair(in, seq, segments[size_t(seq)], h, outs[size_t(i)], states[size_t(i)]);
  });

  Tally total;
  int64_t compared = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    int64_t seq = pairs[i] / H, h = pairs[i] % H;
    for (auto [l2, t] : {std::pair{&outs[i], in.o}, std::pair{&states[i], in.ht}}) {
      if (!t || l2->worstFlat < 0)
        continue;
      double rel = l2->rel();
      total.record(rel <= options.rtol, std::sqrt(l2->worst), rel, [&] {
        return t->name + " of sequence " + std::to_string(seq) + ", head " + std::to_string(h) +
               ": relative L2 error " + num(rel) + " > " + num(options.rtol) + " (largest deviation " + t->name +
               t->indexString(l2->worstFlat) + " = " + num(l2->worstGot) + ", expected " + num(l2->worstWant) + ")";
      });
      ++compared;
    }
  }
  CheckReport r;
  total.into(r);
  r.summary = std::to_string(pairs.size()) + " of " + std::to_string(nseq * H) + " (sequence, head) pairs checked (" +
              std::to_string(compared) + " relative L2 comparisons), scale " + num(in.scale);
  return r;
}

} // namespace cake::oracle
