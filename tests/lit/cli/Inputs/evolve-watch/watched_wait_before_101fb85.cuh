/// mbarrier_wait_parity with a deadline, as the runtime had it before commit 101fb85: out of line, and a call
/// that may return, so ptxas keeps every live register across it by the ABI: register allocation failed at
/// the warp-specialized GEMM's consumer, regs(232) (C7600), built with --watch-hangs (issue #14).
__device__ __noinline__ void watched_wait(u32 bar, u32 parity, HangRecord* record, u32 site, u64 timeout_ns) {
  if (mbarrier_wait_parity_bounded(bar, parity, 64)) return;
  const u64 start = global_timer_ns();
  while (true) {
    if (mbarrier_wait_parity_bounded(bar, parity, 256)) return;
    const u64 now = global_timer_ns();
    if (now - start > timeout_ns) {
      if (atomicCAS(&record->hung, 0u, 1u) == 0u) {
        record->site = site;
        record->parity = parity;
        record->block_x = blockIdx.x;
        record->block_y = blockIdx.y;
        record->block_z = blockIdx.z;
        record->thread = threadIdx.x;
        record->barrier = bar;
        record->waited_ns = now - start;
        __threadfence_system();
      }
      asm volatile("trap;");
    }
  }
}
