// strided CUDA emulator: launchers and the C API that Python calls (through ctypes).
//
// Included after the kernel source. compile_module() then writes one row per name expression:
//   static const strided_emu::Kernel strided_emu_kernels[] = {
//       STRIDED_EMU_KERNEL(strided_add<float, int>), ...};
//   STRIDED_EMU_API(strided_emu_kernels)
// A row takes the kernel's address (which instantiates a template), records sizeof of each of its
// parameters, and a thunk that unpacks the packed argument bytes into those parameters with
// memcpy and calls the kernel: one call per emulated thread, so each thread gets its own copy of
// the parameters, as on a GPU.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

namespace __attribute__((visibility("hidden"))) strided_emu {

struct Kernel {
  const char* name;
  Thunk thunk;
  int nparams;
  const size_t* sizes;
};

// Hidden explicitly: a template's visibility otherwise follows its arguments (builtin types),
// and a default-visibility inline variable is a GNU_UNIQUE symbol that dlopen shares.
template <class... P>
__attribute__((visibility("hidden"))) inline constexpr size_t param_sizes[sizeof...(P) + 1] = {
    sizeof(P)..., 0};

template <class... P>
constexpr const size_t* sizes_of(void (*)(P...)) {
  return param_sizes<std::decay_t<P>...>;
}
template <class... P>
constexpr int count_of(void (*)(P...)) {
  return (int)sizeof...(P);
}

template <class T>
inline T load_param(const char* p) {
  std::remove_cv_t<T> v;
  std::memcpy(static_cast<void*>(&v), p, sizeof v);
  return v;
}

// The arguments are packed back to back (no padding), in parameter order: offsets of each.
template <class... P>
struct Offsets {
  struct Array {
    size_t v[sizeof...(P) + 1];
  };
  static constexpr Array value = [] {
    const size_t sizes[] = {sizeof(P)..., 0};
    Array o{};
    for (size_t i = 0; i < sizeof...(P); ++i) o.v[i + 1] = o.v[i] + sizes[i];
    return o;
  }();
};

template <class... P, size_t... I>
inline void call_unpacked(void (*kernel)(P...), const char* args, std::index_sequence<I...>) {
  using O = Offsets<std::decay_t<P>...>;
  kernel(load_param<std::decay_t<P>>(args + O::value.v[I])...);
}

template <class... P>
inline void call(void (*kernel)(P...), const char* args) {
  call_unpacked(kernel, args, std::index_sequence_for<P...>{});
}

}  // namespace strided_emu

#define STRIDED_EMU_KERNEL(...)                                                                   \
  strided_emu::Kernel {                                                                           \
    #__VA_ARGS__, [](const char* args) { strided_emu::call(&__VA_ARGS__, args); },                \
        strided_emu::count_of(&__VA_ARGS__), strided_emu::sizes_of(&__VA_ARGS__)                  \
  }

#define STRIDED_EMU_EXPORT extern "C" __attribute__((visibility("default")))

#define STRIDED_EMU_API(table)                                                                    \
  STRIDED_EMU_EXPORT int strided_emu_kernel_count() { return (int)(sizeof table / sizeof table[0]); } \
  STRIDED_EMU_EXPORT int strided_emu_kernel_params(int k, size_t* sizes, int cap) {              \
    const strided_emu::Kernel& kern = table[k];                                                   \
    for (int i = 0; i < kern.nparams && i < cap; ++i) sizes[i] = kern.sizes[i];                   \
    return kern.nparams;                                                                          \
  }                                                                                               \
  STRIDED_EMU_EXPORT void strided_emu_init(char* stacks, size_t stride, size_t guard, int n) {   \
    strided_emu::rt.stacks = stacks;                                                              \
    strided_emu::rt.stack_stride = stride;                                                        \
    strided_emu::rt.guard_page = guard;                                                           \
    strided_emu::rt.nstacks = n;                                                                  \
  }                                                                                               \
  STRIDED_EMU_EXPORT int strided_emu_launch(                                                      \
      int k, const char* name, const unsigned* grid, const unsigned* block, size_t shared_bytes,  \
      const char* args, int reverse, const uint64_t* allocs, size_t nallocs,                      \
      const unsigned char* canary, int* bad, char* error, size_t error_len) {                     \
    int status = strided_emu::launch(table[k].thunk, name, grid, block, shared_bytes, args,      \
                                     reverse, allocs, nallocs, canary, bad);                      \
    std::snprintf(error, error_len, "%s", strided_emu::rt.error);                                 \
    return status;                                                                                \
  }
