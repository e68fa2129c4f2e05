// Launches the kernel of header_kernel.cuh; its host code allocates with new and delete (C++20 on top of a
// precompiled preamble once crashed Clang 19 there: Frontend.cpp's cake_after_preamble.h) and calls the host's
// printf, whose host declaration Clang 19 loses reading a CUDA PCH (declared again after it: the same report).
#include <cstdio>
#include "header_kernel.cuh"

void launch(uint64_t map, const float *in) {
  float *staging = new float[128];
  store_rows<4><<<1, 128>>>(map, in);
  delete[] staging;
  printf("launched\n");
}
