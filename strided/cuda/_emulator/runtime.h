// strided CUDA emulator: the runtime that runs one kernel launch on the CPU.
//
// Included by shim.h; compiled into every emulated module (one translation unit per module), so
// each module carries its own copy of this state. Every symbol is hidden (-fvisibility=hidden)
// except the strided_emu_* C API of launch.h, so modules never see each other.
//
// Note [Emulator execution model]
// A launch runs the blocks of the grid one after another. Inside a block, every CUDA thread is
// a fiber: a small stack plus saved registers. A fiber runs until it returns or reaches a
// synchronisation point (__syncthreads, __syncwarp, a shuffle/vote, __nanosleep), where it
// switches back to the scheduler (run_block) and waits. When no fiber can run any more, the
// scheduler resolves what the waiting fibers wait for:
//   1. warp operations: a group of lanes (the mask, less lanes that do not exist in a partial
//      last warp) whose members all wait at the same operation with the same mask completes; the
//      results (shuffled values, ballots) are computed and those lanes become runnable;
//   2. the block barrier: when every live thread waits at __syncthreads, all are released;
//   3. anything else is an error: a thread returned while others wait at __syncthreads, a mask
//      names a lane that exited, lanes wait at different operations: a deadlock on a GPU, or
//      undefined behaviour; it is reported, never waited on forever.
// Fibers are scheduled in thread order, or in reverse order (set_thread_order("reverse")), so a
// kernel that reads shared memory without the barrier that orders it gives different results
// under the two orders. Fibers yield only where a real GPU must synchronise, so a kernel without
// barriers runs each thread to completion: two context switches per thread.
//
// Faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) raised by kernel code during a launch are caught with
// siglongjmp back to the launch, on the launching OS thread only, and reported with the block and
// thread that faulted; the handlers of the process are restored after every launch.
#pragma once

#include <csetjmp>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <pthread.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace __attribute__((visibility("hidden"))) strided_emu {

constexpr int kMaxThreads = 1024;
constexpr int kWarpSize = 32;
constexpr size_t kGuardBytes = 256;                   // canary bytes on each side of a buffer
constexpr size_t kMaxDynamicShared = 227 * 1024;      // sharedMemPerBlockOptin of an sm_90 GPU
constexpr unsigned char kSharedFill = 0xFF;           // uninitialised shared memory reads as NaN / -1

enum class State : uint8_t { Runnable, AtBarrier, AtWarp, Done };

// What a fiber waits for at a warp operation, and what it gets back.
enum WarpOp : uint8_t {
  kShfl, kShflUp, kShflDown, kShflXor, kBallot, kAny, kAll, kSyncWarp,
  kReduceAdd, kReduceMin, kReduceMax, kReduceAnd, kReduceOr, kReduceXor,
  kReduceMinSigned, kReduceMaxSigned, kMatchAny,
};
enum BarrierOp : uint8_t { kSync, kSyncCount, kSyncAnd, kSyncOr };

inline const char* warp_op_name(int op) {
  static const char* names[] = {
      "__shfl_sync",       "__shfl_up_sync",    "__shfl_down_sync",  "__shfl_xor_sync",
      "__ballot_sync",     "__any_sync",        "__all_sync",        "__syncwarp",
      "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
      "__reduce_or_sync",  "__reduce_xor_sync", "__reduce_min_sync", "__reduce_max_sync",
      "__match_any_sync"};
  return names[op];
}

struct Thread {
  void* sp;          // saved stack pointer while switched out (x86-64)
  int stack;         // index of the fiber stack it runs on, -1 before it starts
  unsigned x, y, z;  // threadIdx
  State state;
  uint8_t op;        // WarpOp or BarrierOp being waited on
  unsigned mask;     // warp operation mask
  int arg;           // source lane / delta / lane mask
  int width;         // shuffle width
  uint64_t value;    // the value this lane contributes
  uint64_t result;   // what it gets back
#if !defined(__x86_64__)
  ucontext_t ctx;
#endif
};

using Thunk = void (*)(const char* args);

struct Runtime {
  // The fiber stacks: one pool per process, owned by Python (see _memory.py), shared by modules.
  char* stacks = nullptr;
  size_t stack_stride = 0;  // bytes from one stack to the next; the lowest page is a guard page
  size_t guard_page = 0;
  int nstacks = 0;

  Thread threads[kMaxThreads];
  int nthreads = 0;
  int free_stacks[kMaxThreads];  // stacks of finished threads, reused last-in first-out
  int nfree = 0;
  int current = -1;  // index of the running fiber, -1 in the scheduler
  int reverse = 0;
  void* sched_sp = nullptr;
#if !defined(__x86_64__)
  ucontext_t sched_ctx;
#endif
  uint3 thread_idx{0, 0, 0}, block_idx{0, 0, 0};
  dim3 block_dim, grid_dim;

  Thunk thunk = nullptr;
  const char* args = nullptr;
  const char* kernel = "";
  bool failed = false;
  char error[2048] = {0};

  // Fault handling during a launch.
  sigjmp_buf jmp;
  volatile sig_atomic_t in_launch = 0;
  pthread_t launch_thread;
  volatile sig_atomic_t fault_signal = 0;
  void* volatile fault_addr = nullptr;
  int fault_thread = -1;
};

inline Runtime rt;
alignas(64) inline unsigned char dynamic_shared[kGuardBytes + kMaxDynamicShared + kGuardBytes];
alignas(16) inline char signal_stack[64 * 1024];

// ---------------------------------------------------------------------------------------------
// Context switch. Each fiber starts in fiber_entry on its own stack and switches back to the
// scheduler (on the launching OS thread's stack) when it waits or finishes.

extern "C" void strided_emu_fiber_entry();

#if defined(__x86_64__)
// switch(save, to): push the callee-saved registers on the current stack, store the stack
// pointer in *save, load `to` and pop the same registers from it. The SSE and x87 control words
// (rounding mode, flush-to-zero) are not switched: kernels cannot change them, so every fiber
// runs with those of the launching thread. A new fiber gets a hand-made frame whose return
// address is the trampoline, which calls the entry held in r12 with a 16-byte aligned stack.
extern "C" void strided_emu_switch(void** save, void* to);
extern "C" void strided_emu_trampoline();
asm(R"(
  .text
  .globl strided_emu_switch
  .hidden strided_emu_switch
  .type strided_emu_switch, @function
strided_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size strided_emu_switch, .-strided_emu_switch

  .globl strided_emu_trampoline
  .hidden strided_emu_trampoline
  .type strided_emu_trampoline, @function
strided_emu_trampoline:
  call *%r12
  ud2
  .size strided_emu_trampoline, .-strided_emu_trampoline
)");
#endif

inline char* stack_top(int t) { return rt.stacks + (size_t)(t + 1) * rt.stack_stride; }

// Give thread t a stack and a first frame that starts strided_emu_fiber_entry. Stacks are taken
// from the free list, most recently freed first: a block whose threads run to completion one
// after another uses one stack, hot in the cache, for all of them.
inline void prepare_fiber(int t) {
  Thread& th = rt.threads[t];
  th.stack = rt.free_stacks[--rt.nfree];
#if defined(__x86_64__)
  uint64_t* top = reinterpret_cast<uint64_t*>(stack_top(th.stack));
  top[-1] = reinterpret_cast<uint64_t>(&strided_emu_trampoline);  // return address
  top[-2] = 0;                                                      // rbp
  top[-3] = 0;                                                      // rbx
  top[-4] = reinterpret_cast<uint64_t>(&strided_emu_fiber_entry);  // r12
  top[-5] = top[-6] = top[-7] = 0;                                  // r13, r14, r15
  th.sp = top - 7;
#else
  getcontext(&th.ctx);
  th.ctx.uc_stack.ss_sp = stack_top(th.stack) - (rt.stack_stride - rt.guard_page);
  th.ctx.uc_stack.ss_size = rt.stack_stride - rt.guard_page;
  th.ctx.uc_link = nullptr;
  makecontext(&th.ctx, strided_emu_fiber_entry, 0);
#endif
}

inline void resume(int t) {
  Thread& th = rt.threads[t];
  if (th.stack < 0) prepare_fiber(t);
  rt.current = t;
  rt.thread_idx = uint3{th.x, th.y, th.z};
#if defined(__x86_64__)
  strided_emu_switch(&rt.sched_sp, th.sp);
#else
  swapcontext(&rt.sched_ctx, &th.ctx);
#endif
  rt.current = -1;
  if (th.state == State::Done) rt.free_stacks[rt.nfree++] = th.stack;
}

// Called on a fiber: give control back to the scheduler until it resumes this fiber.
inline void yield_to_scheduler() {
  Thread& th = rt.threads[rt.current];
#if defined(__x86_64__)
  strided_emu_switch(&th.sp, rt.sched_sp);
#else
  swapcontext(&th.ctx, &rt.sched_ctx);
#endif
}

// ---------------------------------------------------------------------------------------------
// Errors: recorded as text for Python; a failing fiber is abandoned (its stack is reused later).

inline void vformat_error(const char* fmt, va_list ap) {
  if (rt.failed) return;  // keep the first error
  rt.failed = true;
  int n = std::snprintf(rt.error, sizeof rt.error, "%s: ", rt.kernel);
  if (n < 0 || (size_t)n >= sizeof rt.error) n = 0;
  if (rt.current >= 0) {
    int m = std::snprintf(rt.error + n, sizeof rt.error - n,
                          "block (%u, %u, %u), thread (%u, %u, %u): ", rt.block_idx.x,
                          rt.block_idx.y, rt.block_idx.z, rt.thread_idx.x, rt.thread_idx.y,
                          rt.thread_idx.z);
    if (m > 0 && (size_t)(n + m) < sizeof rt.error) n += m;
  }
  std::vsnprintf(rt.error + n, sizeof rt.error - n, fmt, ap);
}

inline void format_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vformat_error(fmt, ap);
  va_end(ap);
}

// Report an error from kernel code and abandon the calling fiber (or, outside a launch, only
// record it: there is nothing to abandon).
inline void fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vformat_error(fmt, ap);
  va_end(ap);
  if (rt.current >= 0) {
    rt.threads[rt.current].state = State::Done;
    yield_to_scheduler();
  }
}

extern "C" inline void strided_emu_fiber_entry() {
  rt.thunk(rt.args);
  rt.threads[rt.current].state = State::Done;
  yield_to_scheduler();
  __builtin_trap();  // a finished fiber is never resumed
}

// ---------------------------------------------------------------------------------------------
// Synchronisation points, called from kernel code through shim.h.

inline uint64_t warp_wait(int op, unsigned mask, uint64_t value, int arg = 0, int width = 32) {
  Thread& th = rt.threads[rt.current];
  th.state = State::AtWarp;
  th.op = (uint8_t)op;
  th.mask = mask;
  th.value = value;
  th.arg = arg;
  th.width = width;
  yield_to_scheduler();
  return th.result;
}

inline uint64_t block_wait(int op, uint64_t value) {
  Thread& th = rt.threads[rt.current];
  th.state = State::AtBarrier;
  th.op = (uint8_t)op;
  th.value = value;
  yield_to_scheduler();
  return th.result;
}

// __nanosleep and friends: let the other threads of the block run (a spin-wait on a flag that
// another thread sets then terminates), but stay runnable.
inline void yield_runnable() {
  rt.threads[rt.current].state = State::Runnable;
  yield_to_scheduler();
}

// ---------------------------------------------------------------------------------------------
// The scheduler of one block.

inline void describe_thread(char* buf, size_t n, int t) {
  const Thread& th = rt.threads[t];
  std::snprintf(buf, n, "(%u, %u, %u)", th.x, th.y, th.z);
}

// Resolve the warp operations that are complete; push released lanes onto runq. Returns false on
// an error (recorded).
inline bool resolve_warps(int* runq, int& nrun) {
  const int n = rt.nthreads;
  const int nwarps = (n + kWarpSize - 1) / kWarpSize;
  for (int wi = 0; wi < nwarps; ++wi) {
    const int w = rt.reverse ? nwarps - 1 - wi : wi;
    const int base = w * kWarpSize;
    const int lanes = n - base < kWarpSize ? n - base : kWarpSize;
    const unsigned exists = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u);
    unsigned resolved = 0;
    for (int l = 0; l < lanes; ++l) {
      const Thread& th = rt.threads[base + l];
      if (th.state != State::AtWarp || (resolved >> l & 1u)) continue;
      const unsigned group = th.mask & exists;
      if (!(th.mask >> l & 1u)) {
        char who[48];
        describe_thread(who, sizeof who, base + l);
        format_error("%s by thread %s with mask 0x%08x, which does not include its own lane %d",
                     warp_op_name(th.op), who, th.mask, l);
        return false;
      }
      bool ready = true;
      for (int k = 0; k < lanes; ++k) {
        if (!(group >> k & 1u)) continue;
        const Thread& o = rt.threads[base + k];
        if (o.state == State::Done) {
          char who[48], gone[48];
          describe_thread(who, sizeof who, base + l);
          describe_thread(gone, sizeof gone, base + k);
          format_error("%s(mask 0x%08x) by thread %s names lane %d, thread %s, which has "
                       "returned (on a GPU: undefined behaviour or a hang)",
                       warp_op_name(th.op), th.mask, who, k, gone);
          return false;
        }
        if (o.state != State::AtWarp || o.mask != th.mask) {
          ready = false;  // maybe reported as a deadlock below
          break;
        }
        if (o.op != th.op) {
          char a[48], b[48];
          describe_thread(a, sizeof a, base + l);
          describe_thread(b, sizeof b, base + k);
          format_error("lanes of warp %d wait at different warp operations: thread %s at %s, "
                       "thread %s at %s",
                       w, a, warp_op_name(th.op), b, warp_op_name(o.op));
          return false;
        }
      }
      if (!ready) continue;
      // Every lane of the group has arrived: compute what each gets back.
      uint64_t vote = 0, acc = 0;
      int64_t sacc = 0;
      bool first = true;
      for (int k = 0; k < lanes; ++k) {
        if (!(group >> k & 1u)) continue;
        const uint64_t v = rt.threads[base + k].value;
        if (v) vote |= 1ull << k;
        const uint32_t u = (uint32_t)v;
        const int32_t s = (int32_t)u;
        switch (th.op) {
          case kReduceAdd: acc += u; break;
          case kReduceMin: acc = first || u < acc ? u : acc; break;
          case kReduceMax: acc = first || u > acc ? u : acc; break;
          case kReduceMinSigned: sacc = first || s < sacc ? s : sacc; break;
          case kReduceMaxSigned: sacc = first || s > sacc ? s : sacc; break;
          case kReduceAnd: acc = first ? u : (acc & u); break;
          case kReduceOr: acc |= u; break;
          case kReduceXor: acc ^= u; break;
          default: break;
        }
        first = false;
      }
      for (int k = 0; k < lanes; ++k) {
        if (!(group >> k & 1u)) continue;
        Thread& o = rt.threads[base + k];
        const int width = o.width;
        const int seg = k & ~(width - 1);  // first lane of this lane's segment
        int src = k;
        switch (o.op) {
          case kShfl: src = seg + (o.arg & (width - 1)); break;
          case kShflUp: src = (k - seg) >= o.arg ? k - o.arg : k; break;
          case kShflDown: src = (k - seg) + o.arg < width ? k + o.arg : k; break;
          case kShflXor: {  // CUDA: earlier segments may be read, later ones give your own
            const int x = (k ^ o.arg) & 31;
            src = x < seg + width ? x : k;
            break;
          }
          default: break;
        }
        switch (o.op) {
          case kShfl: case kShflUp: case kShflDown: case kShflXor:
            // A source lane outside the group (not in the mask, or missing from a partial
            // warp) gives the caller's own value. See Note [Emulated warps] in shim.h.
            o.result = (src < lanes && (group >> src & 1u)) ? rt.threads[base + src].value
                                                              : o.value;
            break;
          case kBallot: o.result = vote; break;
          case kAny: o.result = vote != 0; break;
          case kAll: o.result = vote == (uint64_t)group; break;
          case kReduceMinSigned: case kReduceMaxSigned: o.result = (uint64_t)(uint32_t)sacc; break;
          case kMatchAny: {
            uint64_t m = 0;
            for (int j = 0; j < lanes; ++j)
              if ((group >> j & 1u) && rt.threads[base + j].value == o.value) m |= 1ull << j;
            o.result = m;
            break;
          }
          case kSyncWarp: o.result = 0; break;
          default: o.result = acc; break;
        }
      }
      for (int k = 0; k < lanes; ++k) {
        if (!(group >> k & 1u)) continue;
        rt.threads[base + k].state = State::Runnable;
        runq[nrun++] = base + k;
      }
      resolved |= group;
    }
  }
  return true;
}

inline void report_deadlock(int nbarrier, int ndone) {
  char buf[1024];
  size_t len = 0;
  int shown = 0;
  for (int t = 0; t < rt.nthreads && shown < 4; ++t) {
    const Thread& th = rt.threads[t];
    if (th.state != State::AtWarp) continue;
    char who[48];
    describe_thread(who, sizeof who, t);
    int m = std::snprintf(buf + len, sizeof buf - len, "%sthread %s at %s(mask 0x%08x)",
                          shown ? ", " : "", who, warp_op_name(th.op), th.mask);
    if (m > 0 && len + m < sizeof buf) len += m;
    ++shown;
  }
  buf[len] = 0;
  format_error("deadlock: %d thread(s) wait at __syncthreads(), %d returned, and lanes wait at "
               "warp operations whose other lanes never arrive: %s",
               nbarrier, ndone, buf);
}

inline bool run_block() {
  const int n = rt.nthreads;
  static int runq[kMaxThreads];
  int nrun = 0;
  unsigned x = 0, y = 0, z = 0;  // threadIdx of thread t, counted without divisions
  for (int t = 0; t < n; ++t) {
    Thread& th = rt.threads[t];
    th.x = x;
    th.y = y;
    th.z = z;
    th.state = State::Runnable;
    th.stack = -1;  // gets a stack when it first runs
    runq[t] = rt.reverse ? n - 1 - t : t;
    if (++x == rt.block_dim.x) {
      x = 0;
      if (++y == rt.block_dim.y) y = 0, ++z;
    }
  }
  nrun = n;
  for (;;) {
    for (int i = 0; i < nrun; ++i) {
      resume(runq[i]);
      if (rt.failed) return false;
      // A fiber that yielded while runnable (__nanosleep) runs again in the next round.
    }
    nrun = 0;
    int ndone = 0, nbarrier = 0, nwarp = 0;
    for (int t = 0; t < n; ++t) {
      switch (rt.threads[t].state) {
        case State::Done: ++ndone; break;
        case State::AtBarrier: ++nbarrier; break;
        case State::AtWarp: ++nwarp; break;
        case State::Runnable: break;
      }
    }
    if (ndone == n) return true;
    if (ndone + nbarrier + nwarp < n) {  // some fibers yielded while runnable
      for (int i = 0; i < n; ++i) {
        const int t = rt.reverse ? n - 1 - i : i;
        if (rt.threads[t].state == State::Runnable) runq[nrun++] = t;
      }
    }
    if (nwarp) {
      if (!resolve_warps(runq, nrun)) return false;
    }
    if (nrun) continue;
    if (nbarrier && nbarrier + ndone == n) {
      if (ndone) {
        char who[48];
        int t = 0;
        while (rt.threads[t].state != State::Done) ++t;
        describe_thread(who, sizeof who, t);
        format_error("__syncthreads() not reached by all threads of the block: %d thread(s) "
                     "returned without it (thread %s, ...) while %d wait at it (on a GPU: "
                     "undefined behaviour or a hang)",
                     ndone, who, nbarrier);
        return false;
      }
      uint64_t count = 0;
      for (int t = 0; t < n; ++t) count += rt.threads[t].value != 0;
      for (int i = 0; i < n; ++i) {
        const int t = rt.reverse ? n - 1 - i : i;
        Thread& th = rt.threads[t];
        switch (th.op) {
          case kSyncCount: th.result = count; break;
          case kSyncAnd: th.result = count == (uint64_t)n; break;
          case kSyncOr: th.result = count != 0; break;
          default: th.result = 0; break;
        }
        th.state = State::Runnable;
        runq[nrun++] = t;
      }
      continue;
    }
    report_deadlock(nbarrier, ndone);
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Signals during a launch.

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGINT};
constexpr int kNumSignals = sizeof kSignals / sizeof kSignals[0];

struct SavedSignals {
  struct sigaction old[kNumSignals];
  stack_t old_stack;
};
inline SavedSignals saved_signals;

inline void on_signal(int sig, siginfo_t* info, void*) {
  if (rt.in_launch && pthread_equal(pthread_self(), rt.launch_thread)) {
    rt.fault_signal = sig;
    rt.fault_addr = info ? info->si_addr : nullptr;
    rt.fault_thread = rt.current;
    siglongjmp(rt.jmp, 1);
  }
  // Not ours (another OS thread): hand the signal to the handler the process had before.
  for (int i = 0; i < kNumSignals; ++i) {
    if (kSignals[i] != sig) continue;
    const struct sigaction& old = saved_signals.old[i];
    if (sig == SIGINT) {  // Python's handler only sets a flag: call it
      if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
        old.sa_handler(sig);
    } else {  // a fault: restore the old action and return, so that the fault happens again
      sigaction(sig, &old, nullptr);
    }
  }
}

inline void install_signals(SavedSignals& saved) {
  stack_t ss{};
  ss.ss_sp = signal_stack;
  ss.ss_size = sizeof signal_stack;
  ss.ss_flags = 0;
  sigaltstack(&ss, &saved.old_stack);
  struct sigaction sa{};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < kNumSignals; ++i) sigaction(kSignals[i], &sa, &saved.old[i]);
}

inline void restore_signals(const SavedSignals& saved) {
  for (int i = 0; i < kNumSignals; ++i) sigaction(kSignals[i], &saved.old[i], nullptr);
  sigaltstack(&saved.old_stack, nullptr);
}

inline const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "invalid memory access (SIGSEGV)";
    case SIGBUS: return "misaligned or invalid memory access (SIGBUS)";
    case SIGFPE: return "arithmetic fault (SIGFPE: integer division by zero or overflow)";
    case SIGILL: return "trap (SIGILL: __trap(), __builtin_unreachable() or a UBSan trap)";
    default: return "signal";
  }
}

// ---------------------------------------------------------------------------------------------
// One launch.

enum Status { kOk = 0, kKernelError = 1, kInterrupted = 2 };

inline void run_grid() {
  const uint64_t gx = rt.grid_dim.x, gy = rt.grid_dim.y, gz = rt.grid_dim.z;
  const uint64_t nblocks = gx * gy * gz;
  for (uint64_t i = 0; i < nblocks; ++i) {
    const uint64_t b = rt.reverse ? nblocks - 1 - i : i;
    rt.block_idx = uint3{(unsigned)(b % gx), (unsigned)((b / gx) % gy), (unsigned)(b / (gx * gy))};
    if (!run_block()) return;
  }
}

inline bool check_guard(const unsigned char* p, const unsigned char* canary) {
  return std::memcmp(p, canary, kGuardBytes) == 0;
}

// Returns a Status; the message is in rt.error. `allocs` holds (base, nbytes) pairs of the live
// allocations, each with kGuardBytes of canary before and after its nbytes; *bad receives how
// many of them have a damaged guard (Python finds and reports them).
inline int launch(Thunk thunk, const char* name, const unsigned* grid, const unsigned* block,
                  size_t shared_bytes, const char* args, int reverse, const uint64_t* allocs,
                  size_t nallocs, const unsigned char* canary, int* bad) {
  *bad = 0;
  rt.failed = false;
  rt.error[0] = 0;
  rt.kernel = name;
  rt.thunk = thunk;
  rt.args = args;
  rt.reverse = reverse;
  rt.grid_dim = dim3(grid[0], grid[1], grid[2]);
  rt.block_dim = dim3(block[0], block[1], block[2]);
  rt.nthreads = (int)(block[0] * block[1] * block[2]);
  rt.current = -1;
  if (rt.nthreads > rt.nstacks || rt.nthreads > kMaxThreads || rt.stacks == nullptr) {
    format_error("%d threads per block: the emulator has %d fiber stacks", rt.nthreads,
                 rt.nstacks);
    return kKernelError;
  }
  if (shared_bytes > kMaxDynamicShared) {
    format_error("%zu bytes of dynamic shared memory requested; at most %zu", shared_bytes,
                 kMaxDynamicShared);
    return kKernelError;
  }
  rt.nfree = 0;
  for (int i = rt.nthreads - 1; i >= 0; --i) rt.free_stacks[rt.nfree++] = i;
  std::memcpy(dynamic_shared, canary, kGuardBytes);
  std::memset(dynamic_shared + kGuardBytes, kSharedFill, shared_bytes);
  std::memcpy(dynamic_shared + kGuardBytes + shared_bytes, canary, kGuardBytes);

  int status = kOk;
  SavedSignals& saved = saved_signals;
  rt.launch_thread = pthread_self();
  rt.fault_signal = 0;
  install_signals(saved);
  rt.in_launch = 1;
  if (sigsetjmp(rt.jmp, 0) == 0) {  // SA_NODEFER: the handler leaves the mask alone
    run_grid();
  } else {
    rt.current = rt.fault_thread;  // for the block/thread in the message
    const int sig = rt.fault_signal;
    if (sig == SIGINT) {
      rt.failed = false;
      format_error("interrupted");
      status = kInterrupted;
    } else {
      const uintptr_t a = (uintptr_t)rt.fault_addr;
      const uintptr_t lo = (uintptr_t)rt.stacks;
      const uintptr_t hi = lo + (uintptr_t)rt.nstacks * rt.stack_stride;
      if ((sig == SIGSEGV || sig == SIGBUS) && a >= lo && a < hi &&
          (a - lo) % rt.stack_stride < rt.guard_page) {
        format_error("stack overflow: the emulator gives each thread %zu KiB of stack (large "
                     "local arrays? deep recursion?)",
                     (rt.stack_stride - rt.guard_page) / 1024);
      } else {
        format_error("%s at address %p", signal_name(sig), rt.fault_addr);
      }
    }
    rt.current = -1;
  }
  rt.in_launch = 0;
  restore_signals(saved);
  std::fflush(stdout);
  if (rt.failed && status == kOk) status = kKernelError;

  // Dynamic shared memory guards: report (if nothing else went wrong) and restore.
  const unsigned char* front = dynamic_shared;
  const unsigned char* back = dynamic_shared + kGuardBytes + shared_bytes;
  if (!check_guard(front, canary) || !check_guard(back, canary)) {
    size_t past = 0, before = 0;
    for (size_t i = 0; i < kGuardBytes; ++i)
      if (back[i] != canary[i]) past = i + 1;
    for (size_t i = 0; i < kGuardBytes; ++i)
      if (front[i] != canary[i]) { before = kGuardBytes - i; break; }
    if (status == kOk) {
      if (past)
        format_error("out-of-bounds write to dynamic shared memory: %zu bytes past the end of "
                     "the %zu bytes of the launch",
                     past, shared_bytes);
      else
        format_error("out-of-bounds write to dynamic shared memory: %zu bytes before its start",
                     before);
      status = kKernelError;
    }
  }
  for (size_t i = 0; i < nallocs; ++i) {
    const unsigned char* base = reinterpret_cast<const unsigned char*>(allocs[2 * i]);
    if (!check_guard(base, canary) || !check_guard(base + kGuardBytes + allocs[2 * i + 1], canary))
      ++*bad;
  }
  return status;
}

}  // namespace strided_emu
