// A template whose instantiation fails, in a header found through -I: Clang names its errors by the path as
// found in the whole parse (inc/faulty.cuh) and by the absolute one on top of a precompiled preamble.
#pragma once
template <class T> int broken() { return T::nothing(); }
