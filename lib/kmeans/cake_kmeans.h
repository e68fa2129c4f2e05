/*===- cake_kmeans.h - KMeans on the GPU, the C API of libcake_kmeans.so ---===*
 *
 * Part of CAKE. Batched KMeans on NVIDIA GPUs with kernels written in CAKE IR
 * (kernels/kmeans/), compiled when the library was built and embedded in it.
 * docs/kmeans-library.md has the full contract; in short:
 *
 * - Every pointer is device memory of one GPU (the one x lies on), in that
 *   GPU's primary context (the CUDA runtime's and PyTorch's). Tensors are
 *   dense, row major, 16-byte aligned:
 *     x     [B, N, D]  dtype        the points
 *     c     [B, K, D]  dtype        centroids (c_old, c_new, c_inout)
 *     ids   [B, N]     int32        the index of each point's nearest centroid
 * - Work is enqueued on `stream` (a cudaStream_t / CUstream; NULL is the
 *   legacy default stream) and the call returns without waiting, except
 *   cake_kmeans_fit, which reads the convergence test back after every
 *   iteration and therefore waits for the stream.
 * - Every function returns a cake_kmeans_status; on anything but
 *   CAKE_KMEANS_OK, cake_kmeans_last_error() says what went wrong in one
 *   sentence. Arguments are checked before any GPU work: a call either
 *   enqueues correct work or enqueues nothing and says why. Errors of kernels
 *   that fault while running surface, as with any CUDA library, in a later
 *   call that waits (cake_kmeans_fit, or the caller's synchronization).
 * - Thread safe. Scratch memory (centroid norms, sums, counts, shifts) comes
 *   from a library-owned stream-ordered pool; nothing needs to be freed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef CAKE_KMEANS_H
#define CAKE_KMEANS_H

#include <stdint.h>

#if defined(__GNUC__)
#define CAKE_KMEANS_API __attribute__((visibility("default")))
#else
#define CAKE_KMEANS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cake_kmeans_status {
  CAKE_KMEANS_OK = 0,
  CAKE_KMEANS_INVALID_ARGUMENT = 1, /* a bad shape, a null, misaligned or host pointer, a stream of another GPU */
  CAKE_KMEANS_UNSUPPORTED = 2,      /* no kernel for this dtype, D or GPU (the dispatcher says which exist) */
  CAKE_KMEANS_NOT_AVAILABLE = 3,    /* this build of the library lacks the kernels (update, fit) */
  CAKE_KMEANS_NO_GPU = 4,           /* no CUDA driver or no GPU */
  CAKE_KMEANS_CUDA_ERROR = 5,       /* a CUDA driver call failed (the message names it) */
  CAKE_KMEANS_TIMEOUT = 6,          /* cake_kmeans_fit waited past the timeout; the GPU is unusable from now on */
  CAKE_KMEANS_INTERNAL = 7          /* a bug of the library (the message says where) */
} cake_kmeans_status;

typedef enum cake_kmeans_dtype {
  CAKE_KMEANS_BF16 = 0,
  CAKE_KMEANS_F16 = 1,
  CAKE_KMEANS_F32 = 2
} cake_kmeans_dtype;

/* ids[b, n] = argmin_k ||x[b, n] - c[b, k]||^2 (ties and near ties within the
 * kernel's fp32 rounding may go either way). */
CAKE_KMEANS_API int cake_kmeans_assign(const void *x, const void *c, int32_t *ids, int64_t B, int64_t N, int64_t K,
                                       int64_t D, int dtype, void *stream);

/* cake_kmeans_assign, and dist[b, n] = ||x[b, n] - c[b, ids[b, n]]||^2 (float32
 * [B, N], 4-byte aligned, computed in fp32 from the inputs by one more kernel). */
CAKE_KMEANS_API int cake_kmeans_assign_with_distance(const void *x, const void *c, int32_t *ids, float *dist,
                                                     int64_t B, int64_t N, int64_t K, int64_t D, int dtype,
                                                     void *stream);

/* c_new[b, k] = the mean of the points x[b, n] with ids[b, n] == k; an empty
 * cluster keeps c_old[b, k]. c_new must not overlap the other arguments.
 * Every ids[b, n] must lie in [0, K): the kernels do not check (ids from
 * cake_kmeans_assign always do). */
CAKE_KMEANS_API int cake_kmeans_update(const void *x, const int32_t *ids, const void *c_old, void *c_new, int64_t B,
                                       int64_t N, int64_t K, int64_t D, int dtype, void *stream);

/* Lloyd's algorithm from the centroids in c_inout: up to max_iters times,
 * assign then update; after each update the per-batch largest centroid shift
 * (computed on the GPU by the update kernel) is read back, and the loop stops
 * once every batch's shift is <= tol. The final centroids are written to
 * c_inout and ids holds the assignment to them (one more assign after the
 * loop). *iters_done (may be NULL) receives the number of updates done.
 * Waits for the stream. The shift is the largest squared L2 distance a
 * centroid moved (0 when none did: tol = 0 runs until nothing moves). After a
 * failure c_inout and ids may hold an intermediate iteration's values. */
CAKE_KMEANS_API int cake_kmeans_fit(const void *x, void *c_inout, int32_t *ids, int64_t B, int64_t N, int64_t K,
                                    int64_t D, int dtype, int max_iters, float tol, int *iters_done, void *stream);

/* The message of the calling thread's last failed call ("" after a call that
 * succeeded). Valid until the thread's next call into the library. */
CAKE_KMEANS_API const char *cake_kmeans_last_error(void);

/* "CAKE_KMEANS_INVALID_ARGUMENT" for 1, ... */
CAKE_KMEANS_API const char *cake_kmeans_status_name(int status);

/* One line: the CAKE version, the embedded kernel files and their targets,
 * and what is missing from this build. */
CAKE_KMEANS_API const char *cake_kmeans_build_info(void);

/* The kernel variant the dispatcher picks for an assignment (update = 0) or an
 * update (update = 1) of this shape on a GPU with sm_count SMs (0: the H200's
 * 132), e.g. "assign_sm90"; NULL when none covers it (the reason in
 * cake_kmeans_last_error). Pure: no GPU work. */
CAKE_KMEANS_API const char *cake_kmeans_variant(int update, int64_t B, int64_t N, int64_t K, int64_t D, int dtype,
                                                int sm_count);

/* Why cake_kmeans_variant chooses what it does: one line per dispatch rule
 * of the library's manifest tried, in order, the last naming the chosen
 * instantiation and the rule (and fitted predicate) that chose it; the same
 * text as `cake dispatch explain kernels/kmeans/kmeans.manifest.json`. The
 * string stays valid until the next call from this thread. NULL on a bad
 * dtype. Pure: no GPU work. */
CAKE_KMEANS_API const char *cake_kmeans_explain(int update, int64_t B, int64_t N, int64_t K, int64_t D, int dtype,
                                                int sm_count);

/* Sends every problem of the named variant's operation (assign or update) to
 * it, bypassing the dispatch rules, e.g. "assign_d64_split4" (for sweeps that
 * measure variants through the library); NULL or "" clears the forcing of
 * both operations. CAKE_KMEANS_INVALID_ARGUMENT for an unknown name; a forced
 * variant that cannot take a call's problem fails that call with
 * CAKE_KMEANS_UNSUPPORTED. Process-wide. */
CAKE_KMEANS_API int cake_kmeans_force_variant(const char *name);

/* 1 when this build has the update kernels (cake_kmeans_update and
 * cake_kmeans_fit work), else 0. */
CAKE_KMEANS_API int cake_kmeans_has_update(void);

#ifdef __cplusplus
}
#endif

#endif /* CAKE_KMEANS_H */
