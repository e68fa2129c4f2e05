/*===- cake_knn.h - k-nearest-neighbour search, the C API of libcake_knn.so -===*
 *
 * Part of CAKE. Exact brute-force KNN search on NVIDIA GPUs with kernels
 * written in CAKE IR (kernels/knn/), compiled when the library was built and
 * embedded in it. docs/knn-library.md has the full contract; in short:
 *
 * - Every pointer is device memory of one GPU (the one q lies on), in that
 *   GPU's primary context (the CUDA runtime's and PyTorch's). Tensors are
 *   dense, row major:
 *     q     [Q, D]  dtype   the queries          16-byte aligned
 *     db    [N, D]  dtype   the database         16-byte aligned
 *     dist  [Q, k]  float32 squared L2 distances, ascending per row (may be NULL)
 *     ids   [Q, k]  int64   the database rows they belong to
 * - dist[i, j] = ||q[i] - db[ids[i, j]]||^2, the k smallest of row i in
 *   ascending order, computed in fp32 from the fp16/bf16 inputs as
 *   ||q||^2 + ||x||^2 - 2 q.x (the products on the tensor cores); equal
 *   distances may come in either order.
 * - Work is enqueued on `stream` (a cudaStream_t / CUstream; NULL is the
 *   legacy default stream) and the call returns without waiting.
 * - Every function returns a cake_knn_status; on anything but CAKE_KNN_OK,
 *   cake_knn_last_error() says what went wrong in one sentence. Arguments are
 *   checked before any GPU work: a call either enqueues correct work or
 *   enqueues nothing and says why. k > N is CAKE_KNN_INVALID_ARGUMENT; a
 *   problem no kernel of this build takes (a D that is not a multiple of 8,
 *   a k or D beyond the largest instantiation, a GPU other than sm_90) is
 *   CAKE_KNN_UNSUPPORTED, and the message says what the build supports.
 * - Thread safe. Scratch memory (norms, partial lists) comes from a
 *   library-owned stream-ordered pool; nothing needs to be freed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef CAKE_KNN_H
#define CAKE_KNN_H

#include <stdint.h>

#if defined(__GNUC__)
#define CAKE_KNN_API __attribute__((visibility("default")))
#else
#define CAKE_KNN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The same numbers as cake_kmeans_status (lib/core/Errors.h). */
typedef enum cake_knn_status {
  CAKE_KNN_OK = 0,
  CAKE_KNN_INVALID_ARGUMENT = 1, /* a bad shape, k > N, a null, misaligned or host pointer, a stream of another GPU */
  CAKE_KNN_UNSUPPORTED = 2,      /* no kernel for this dtype, D, k, metric or GPU (the message says which exist) */
  CAKE_KNN_NOT_AVAILABLE = 3,    /* this build of the library lacks the kernel */
  CAKE_KNN_NO_GPU = 4,           /* no CUDA driver or no GPU */
  CAKE_KNN_CUDA_ERROR = 5,       /* a CUDA driver call failed (the message names it) */
  CAKE_KNN_TIMEOUT = 6,          /* unused by search (it does not wait); kept for the shared numbering */
  CAKE_KNN_INTERNAL = 7          /* a bug of the library (the message says where) */
} cake_knn_status;

typedef enum cake_knn_dtype {
  CAKE_KNN_BF16 = 0,
  CAKE_KNN_F16 = 1
} cake_knn_dtype;

typedef enum cake_knn_metric {
  CAKE_KNN_L2 = 0, /* squared Euclidean distance */
  CAKE_KNN_IP = 1  /* inner product (largest first): not built yet, CAKE_KNN_UNSUPPORTED */
} cake_knn_metric;

/* The k nearest rows of db to each row of q (see the file comment). dist may
 * be NULL (the distances are then not returned). */
CAKE_KNN_API int cake_knn_search(const void *q, const void *db, float *dist, int64_t *ids, int64_t Q, int64_t N,
                                 int64_t D, int64_t k, int dtype, int metric, void *stream);

/* The message of the calling thread's last failed call ("" after a call that
 * succeeded). Valid until the thread's next call into the library. */
CAKE_KNN_API const char *cake_knn_last_error(void);

/* "CAKE_KNN_INVALID_ARGUMENT" for 1, ... */
CAKE_KNN_API const char *cake_knn_status_name(int status);

/* One line: the CAKE version and the embedded instantiations. */
CAKE_KNN_API const char *cake_knn_build_info(void);

/* The instantiation the dispatcher picks for this search on a GPU with
 * sm_count SMs (0: the H200's 132), e.g. "search_fp16_d128_k16"; NULL when
 * none covers it (the reason in cake_knn_last_error). Pure: no GPU work. */
CAKE_KNN_API const char *cake_knn_variant(int64_t Q, int64_t N, int64_t D, int64_t k, int dtype, int sm_count);

/* Why: one line per dispatch rule of kernels/knn/knn.manifest.json tried, in
 * order, then the sizes the chosen instantiation runs at (the split S, the
 * padded database NP, ...); the same text as `cake dispatch explain`. Valid
 * until the next call from this thread; NULL on a bad dtype. Pure. */
CAKE_KNN_API const char *cake_knn_explain(int64_t Q, int64_t N, int64_t D, int64_t k, int dtype, int sm_count);

/* Sends every search to the named instantiation, bypassing the dispatch rules
 * (for sweeps that measure instantiations through the library); NULL or ""
 * clears it. CAKE_KNN_INVALID_ARGUMENT for an unknown name; a forced
 * instantiation that cannot take a call's problem fails that call with
 * CAKE_KNN_UNSUPPORTED. Process-wide. */
CAKE_KNN_API int cake_knn_force_variant(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* CAKE_KNN_H */
