"""Random number kernels: Philox4x32-10 and the draws built on it (uniform, normal, integers,
permutations). The generator object that holds a seed and an offset is ``strided/random.py``.

Note [Counter-based random numbers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A classic generator (Mersenne Twister, PCG) is a state machine: number i+1 comes from the state
left by number i, so one thread must produce them in order. A *counter-based* generator is a
keyed bijection instead: ``block = philox(counter, key)``, where the key is the seed and the
counter is just an index. Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random
numbers: as easy as 1, 2, 3", SC 2011; the generator behind PyTorch's CUDA RNG and JAX) maps a
128-bit counter and a 64-bit key to 128 random bits with ten cheap rounds of multiply and xor.

So element i of a draw is a pure function of (seed, offset + i // k), where k elements come from
one 128-bit block: any thread can compute any element without having seen the others. Hence

- results do not depend on the thread count or on how the work is chunked: ``set_num_threads(1)``
  and ``set_num_threads(16)`` give the same bits;
- a CUDA kernel, one thread per block, produces the same numbers from the same seed (the
  integer, uniform and float64 normal draws bit for bit: both sides compute ``low + span * u``
  without fusing it into an FMA, setup.py's ``-ffp-contract=off``, and the float64 normals use
  the same log and sincos, Note [Box-Muller math that vectorises]; the float32 normals up to
  the last bits of ``logf``/``cosf``, which differ between libms);
- a Generator is just two integers, (seed, offset): each draw reads the blocks
  ``offset, offset + 1, ...`` and then advances the offset by the number of blocks it used.

The counter is the 64-bit block number ``offset + b`` in words 0 (low) and 1 (high), with words 2
and 3 zero; the key is the 64-bit seed, low word first. A pair of 32-bit words (w0, w1) is read as
the 64-bit integer ``w0 + 2**32 * w1``. How many elements one block makes:

==========================  =========================================================  ========
draw                        from one block (r0, r1, r2, r3)                            elements
==========================  =========================================================  ========
uniform float32             ``(r >> 8) * 2**-24`` for each word                        4
uniform float64             ``(x >> 11) * 2**-53`` for x = (r0, r1) and (r2, r3)       2
normal float32              Box-Muller on (r0, r1) and on (r2, r3), 24-bit uniforms    4
normal float64              Box-Muller on x = (r0, r1), y = (r2, r3), 53-bit uniforms  2
integers, range <= 2**32    ``(x * range) >> 64`` for x = (r0, r1) and (r2, r3)        2
integers, range > 2**32     ``(x * range) >> 128``, x = (r0, r1, r2, r3) as 128 bits   1
permutation (Fisher-Yates)  step i: ``(x * (i + 1)) >> 64``, x as for integers         2
==========================  =========================================================  ========

Uniform draws are then ``low + (high - low) * u``, normal ones ``mean + std * z``.

Complex draws fill the real and imaginary parts as one float array of twice the length (element
2j is the real part of element j).
"""

from cython.parallel cimport prange
from libc.math cimport (
    INFINITY,
    cosf,
    logf,
    nextafter,
    nextafterf,
    sinf,
    sqrtf,
)
from libc.stdint cimport (
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)

from strided._core cimport TensorBase, is_contiguous_c
from strided._dtype cimport (
    kBool,
    kComplex64,
    kComplex128,
    kFloat32,
    kFloat64,
    kInt8,
    kInt16,
    kInt32,
    kInt64,
    kUInt8,
    kUInt16,
    kUInt32,
    kUInt64,
)
from strided._iter cimport GRAIN_SIZE
from strided._threads cimport num_threads

cdef extern from *:
    """
    /* Philox4x32 constants (Random123's philox.h): the two multipliers, and the Weyl sequence
       increments (golden ratio, sqrt(3) - 1) that bump the key between rounds. */
    #define STRIDED_PHILOX_M0 0xD2511F53u
    #define STRIDED_PHILOX_M1 0xCD9E8D57u
    #define STRIDED_PHILOX_W0 0x9E3779B9u
    #define STRIDED_PHILOX_W1 0xBB67AE85u

    /* The high 64 bits of the 128-bit product a * b (CUDA's __umul64hi). */
    static inline uint64_t strided_mulhi64(uint64_t a, uint64_t b) {
    #if defined(__SIZEOF_INT128__)
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    #else
        uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32, b_lo = b & 0xffffffffu, b_hi = b >> 32;
        uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
        uint64_t mid = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
        return a_hi * b_hi + (hi_lo >> 32) + (mid >> 32);
    #endif
    }
    """
    const uint32_t PHILOX_M0 "STRIDED_PHILOX_M0"
    const uint32_t PHILOX_M1 "STRIDED_PHILOX_M1"
    const uint32_t PHILOX_W0 "STRIDED_PHILOX_W0"
    const uint32_t PHILOX_W1 "STRIDED_PHILOX_W1"
    uint64_t mulhi64 "strided_mulhi64"(uint64_t a, uint64_t b) noexcept nogil

cdef extern from "random_lanes.h" nogil:
    enum: STRIDED_LANES
    void uniform_f64_lanes "strided_uniform_f64_lanes"(
        double* dst, uint64_t first, uint32_t k0, uint32_t k1, double low, double span,
        double high, double top)
    void normal_f64_lanes "strided_normal_f64_lanes"(
        double* dst, uint64_t first, uint32_t k0, uint32_t k1, double mean, double mean_odd,
        double std)

cdef double TWO_PI = 6.283185307179586
cdef double TWO_POW_M24 = 5.9604644775390625e-08     # 2**-24


# =============================================================================================
# Philox4x32-10. See Note [Counter-based random numbers].
# =============================================================================================

cdef inline void philox4x32_10(const uint32_t* ctr, const uint32_t* key,
                               uint32_t* out) noexcept nogil:
    """out = Philox4x32-10(ctr, key): 4 words from 4 words of counter and 2 of key.

    One round: multiply words 0 and 2 by M0 and M1 into 64-bit products; the high halves, xored
    with words 1 and 3 and with the key, become words 0 and 2; the low halves become words 1
    and 3 (the swap is what spreads every input bit across the block). The key is bumped by a
    Weyl increment before every round but the first.
    """
    cdef uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3]
    cdef uint32_t k0 = key[0], k1 = key[1]
    cdef uint64_t p0, p1
    cdef int r
    for r in range(10):
        if r > 0:
            k0 += PHILOX_W0
            k1 += PHILOX_W1
        p0 = <uint64_t>PHILOX_M0 * c0
        p1 = <uint64_t>PHILOX_M1 * c2
        c0 = <uint32_t>(p1 >> 32) ^ c1 ^ k0
        c2 = <uint32_t>(p0 >> 32) ^ c3 ^ k1
        c1 = <uint32_t>p1
        c3 = <uint32_t>p0
    out[0] = c0
    out[1] = c1
    out[2] = c2
    out[3] = c3


ctypedef struct DrawCtx:
    uint32_t key[2]         # the seed
    uint64_t offset         # the generator's offset: block b of this draw is counter offset + b
    double a                # uniform: low; normal: the mean of the even (real) elements
    double a_odd            # normal: the mean of the odd elements (the imaginary parts)
    double b                # uniform: high - low; normal: the standard deviation
    double high             # uniform: results are kept below it
    uint64_t low_bits       # integers: low, as a 64-bit two's-complement word
    uint64_t range_         # integers: high - low, 0 meaning 2**64
    bint wide               # integers: 128 random bits per element (range > 2**32)
    int num                 # the output's ScalarType


cdef inline void _block(const DrawCtx* ctx, Py_ssize_t b, uint32_t* r) noexcept nogil:
    """The 4 random words of block b of this draw (counter = offset + b)."""
    cdef uint64_t n = ctx.offset + <uint64_t>b
    cdef uint32_t ctr[4]
    ctr[0] = <uint32_t>n
    ctr[1] = <uint32_t>(n >> 32)
    ctr[2] = 0
    ctr[3] = 0
    philox4x32_10(ctr, ctx.key, r)


cdef inline uint64_t _word64(uint32_t lo, uint32_t hi) noexcept nogil:
    return <uint64_t>lo | (<uint64_t>hi << 32)


# =============================================================================================
# The per-block kernels: each writes the elements of blocks [b0, b1) that are below n
# =============================================================================================

ctypedef void (*block_fn)(char* out, Py_ssize_t b0, Py_ssize_t b1, Py_ssize_t n,
                          const DrawCtx* ctx) noexcept nogil


cdef void uniform_f32_loop(char* out_, Py_ssize_t b0, Py_ssize_t b1, Py_ssize_t n,
                           const DrawCtx* ctx) noexcept nogil:
    """Uniform float32 in [low, high): 24 bits of one word each, four per block."""
    cdef float* out = <float*>out_
    cdef uint32_t r[4]
    cdef Py_ssize_t b, i, k
    cdef float v, top = nextafterf(<float>ctx.high, <float>ctx.a)
    for b in range(b0, b1):
        _block(ctx, b, r)
        for k in range(4):
            i = 4 * b + k
            if i < n:
                # (r >> 8) * 2**-24 is exact in float; low + span * u rounds once, in double,
                # and once more to float, which may land on high: keep it below.
                v = <float>(ctx.a + ctx.b * ((r[k] >> 8) * TWO_POW_M24))
                out[i] = v if v < <float>ctx.high else top


# Note [Philox in lanes]
# ~~~~~~~~~~~~~~~~~~~~~~
# One block is a chain of ten dependent rounds, each a 32x32->64-bit multiply: computed alone,
# a block waits on its multiplies' latency, and the float64 draws spent most of their time
# there. strided/_cpu/random_lanes.h computes STRIDED_LANES = 8 blocks side by side, in two
# groups of four 64-bit SIMD lanes (AVX2's vpmuludq multiplies the low 32 bits of four lanes to
# full 64-bit products: the high halves are the new words 0 and 2, the low halves words 1 and
# 3), then turns them into doubles in the same lanes (the 53-bit words converted exactly with
# integer operations and a subtraction, as AVX2 has no 64-bit int-to-double instruction).
# Written as plain loops over lanes, gcc vectorised the rounds only when they were not inlined
# into the caller, and then badly (its 32-bit high-half multiply needs shuffles): hence the
# intrinsics, with the plain loops kept for other targets. Integer arithmetic has no rounding,
# so the words are ``_block``'s, bit for bit. Blocks past the end of a draw are computed into a
# scratch group and dropped (``_tail``): they are pure functions of their counters and change
# nothing. With Note [Box-Muller math that vectorises] this made the float64 uniform fill of
# 10**7 values 2.6x faster (71 -> 27 ms on one AVX2 core) and the normal one 5.2x (260 -> 50
# ms), against NumPy's 27 and 113 ms (PCG64; ziggurat normals) in the same process. The fill
# was already split across threads by counter ranges (``run_blocks``), which leaves the
# numbers as they are.

cdef inline void _tail(double* out, const double* tmp, Py_ssize_t b, Py_ssize_t b1,
                       Py_ssize_t n) noexcept nogil:
    """Copy the elements of a last, partial group of lanes (blocks b .. b1 - 1, elements
    below n) from tmp, two per block."""
    cdef Py_ssize_t i
    for i in range(2 * b, min(2 * b1, n)):
        out[i] = tmp[i - 2 * b]


cdef void uniform_f64_loop(char* out_, Py_ssize_t b0, Py_ssize_t b1, Py_ssize_t n,
                           const DrawCtx* ctx) noexcept nogil:
    """Uniform float64 in [low, high): 53 bits of a 64-bit word each, two per block, made
    STRIDED_LANES blocks at a time (Note [Philox in lanes])."""
    cdef double top = nextafter(ctx.high, ctx.a)
    cdef double tmp[2 * STRIDED_LANES]
    cdef Py_ssize_t b = b0
    while b < b1:
        if b + STRIDED_LANES <= b1 and 2 * (b + STRIDED_LANES) <= n:
            uniform_f64_lanes(<double*>out_ + 2 * b, ctx.offset + <uint64_t>b, ctx.key[0],
                              ctx.key[1], ctx.a, ctx.b, ctx.high, top)
        else:
            uniform_f64_lanes(tmp, ctx.offset + <uint64_t>b, ctx.key[0], ctx.key[1], ctx.a,
                              ctx.b, ctx.high, top)
            _tail(<double*>out_, tmp, b, b1, n)
        b += STRIDED_LANES


cdef void normal_f32_loop(char* out_, Py_ssize_t b0, Py_ssize_t b1, Py_ssize_t n,
                          const DrawCtx* ctx) noexcept nogil:
    """Normal float32: Box-Muller on two pairs of 24-bit uniforms, four values per block.

    Note [Box-Muller]
    ~~~~~~~~~~~~~~~~~
    If u1 is uniform in (0, 1] and u2 in [0, 1), then ``r = sqrt(-2 log u1)`` and
    ``theta = 2 pi u2`` give two independent standard normals ``r cos theta`` and ``r sin
    theta``. u1 excludes 0 so that the log is finite. The uniforms are discrete, which cuts the
    tails: with 24-bit ones (float32) the largest |z| is sqrt(-2 log 2**-24) = 5.77, which a
    sample of 1e8 values would pass about once; with 53-bit ones (float64) it is 8.57 (odds
    1e-17). float32 draws compute in float (logf, sinf, cosf: about half the cost of the double
    functions, and enough for 24-bit inputs).

    Box-Muller needs no rejection loop, which is why GPUs prefer it to the polar and ziggurat
    methods (NumPy's): a retry would break the one-element-one-block rule of Note
    [Counter-based random numbers]. The price is speed on the CPU: a log, a sqrt and a sincos
    per pair of values.
    """
    cdef float* out = <float*>out_
    cdef uint32_t r[4]
    cdef Py_ssize_t b, i, k
    cdef float u1, u2, rad, c, s
    for b in range(b0, b1):
        _block(ctx, b, r)
        for k in range(2):
            # in float: the inputs have 24 bits, and logf/sinf/cosf cost half their doubles
            u1 = ((r[2 * k] >> 8) + 1) * <float>TWO_POW_M24
            u2 = (r[2 * k + 1] >> 8) * <float>TWO_POW_M24
            rad = sqrtf(-2.0 * logf(u1))
            c = cosf(<float>TWO_PI * u2)
            s = sinf(<float>TWO_PI * u2)
            i = 4 * b + 2 * k
            if i < n:
                out[i] = <float>(ctx.a + ctx.b * (rad * c))
            if i + 1 < n:
                out[i + 1] = <float>(ctx.a_odd + ctx.b * (rad * s))


cdef void normal_f64_loop(char* out_, Py_ssize_t b0, Py_ssize_t b1, Py_ssize_t n,
                          const DrawCtx* ctx) noexcept nogil:
    """Normal float64: Box-Muller on two 53-bit uniforms, two values per block. See Note
    [Box-Muller]; blocks made STRIDED_LANES at a time (Note [Philox in lanes]), with the
    vectorised log and sincos of Note [Box-Muller math that vectorises]."""
    cdef double tmp[2 * STRIDED_LANES]
    cdef Py_ssize_t b = b0
    while b < b1:
        if b + STRIDED_LANES <= b1 and 2 * (b + STRIDED_LANES) <= n:
            normal_f64_lanes(<double*>out_ + 2 * b, ctx.offset + <uint64_t>b, ctx.key[0],
                             ctx.key[1], ctx.a, ctx.a_odd, ctx.b)
        else:
            normal_f64_lanes(tmp, ctx.offset + <uint64_t>b, ctx.key[0], ctx.key[1], ctx.a,
                             ctx.a_odd, ctx.b)
            _tail(<double*>out_, tmp, b, b1, n)
        b += STRIDED_LANES


ctypedef fused int_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t


cdef inline uint64_t _below(uint64_t x, uint64_t range_) noexcept nogil:
    """A 64-bit x scaled to [0, range_): floor(x * range_ / 2**64); range_ 0 means 2**64.

    Note [Unbiased bounded integers]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    ``x % range`` (PyTorch's CPU randint) and ``(x * range) >> bits`` (Lemire's multiply-shift)
    both map 2**bits equally likely inputs onto ``range`` outputs, so each output gets either
    floor(2**bits / range) or one more input: its probability is off by a relative error of at
    most ``range / 2**bits``. Lemire removes that with a rejection loop, but a retry would
    make element i depend on more than its own block (see Note [Counter-based random
    numbers]). So we spend bits instead of retries: 64 random bits per element when range <=
    2**32 (error <= 2**-32) and all 128 bits of a block when the range is larger (error <=
    2**-64), far below what any test on a feasible sample could see.
    """
    if range_ == 0:
        return x
    return mulhi64(x, range_)


cdef inline uint64_t _below_wide(uint64_t lo, uint64_t hi, uint64_t range_) noexcept nogil:
    """A 128-bit x = hi * 2**64 + lo scaled to [0, range_): floor(x * range_ / 2**128).

    x * range_ = hi*range_ * 2**64 + lo*range_; of the bits at 2**128 and above, hi*range_
    gives its high word, plus a carry when its low word and the high word of lo*range_ overflow
    64 bits together.
    """
    cdef uint64_t h1, l1, h2
    if range_ == 0:
        return hi
    h1 = mulhi64(hi, range_)
    l1 = hi * range_
    h2 = mulhi64(lo, range_)
    return h1 + (1 if l1 + h2 < l1 else 0)


cdef void _integers(int_t* out, Py_ssize_t b0, Py_ssize_t b1, Py_ssize_t n,
                    const DrawCtx* ctx) noexcept nogil:
    """Integers in [low, high); see Note [Unbiased bounded integers]. ``low + k`` is computed
    on 64-bit words (wrapping) and then narrowed, which is exact when the result fits int_t."""
    cdef uint32_t r[4]
    cdef Py_ssize_t b, i, k
    for b in range(b0, b1):
        _block(ctx, b, r)
        if ctx.wide:
            out[b] = <int_t>(ctx.low_bits + _below_wide(_word64(r[0], r[1]),
                                                        _word64(r[2], r[3]), ctx.range_))
        else:
            for k in range(2):
                i = 2 * b + k
                if i < n:
                    out[i] = <int_t>(ctx.low_bits
                                     + _below(_word64(r[2 * k], r[2 * k + 1]), ctx.range_))


cdef void integers_loop(char* out, Py_ssize_t b0, Py_ssize_t b1, Py_ssize_t n,
                        const DrawCtx* ctx) noexcept nogil:
    """The dtype switch of the integer draw (bool is uint8: its values are 0 and 1)."""
    cdef int num = ctx.num
    if num == kInt8:
        _integers[int8_t](<int8_t*>out, b0, b1, n, ctx)
    elif num == kInt16:
        _integers[int16_t](<int16_t*>out, b0, b1, n, ctx)
    elif num == kInt32:
        _integers[int32_t](<int32_t*>out, b0, b1, n, ctx)
    elif num == kInt64:
        _integers[int64_t](<int64_t*>out, b0, b1, n, ctx)
    elif num == kUInt8 or num == kBool:
        _integers[uint8_t](<uint8_t*>out, b0, b1, n, ctx)
    elif num == kUInt16:
        _integers[uint16_t](<uint16_t*>out, b0, b1, n, ctx)
    elif num == kUInt32:
        _integers[uint32_t](<uint32_t*>out, b0, b1, n, ctx)
    else:
        _integers[uint64_t](<uint64_t*>out, b0, b1, n, ctx)


# =============================================================================================
# Running a draw: blocks split across threads
# =============================================================================================

cdef bint run_blocks(block_fn fn, char* out, Py_ssize_t n, Py_ssize_t per_block,
                     const DrawCtx* ctx) noexcept nogil:
    """Fill n elements, ``per_block`` from each block, splitting the blocks into one range per
    thread above GRAIN_SIZE elements. The chunks only decide who computes a block, never what
    it holds. Returns whether it ran in parallel."""
    cdef Py_ssize_t nblocks = (n + per_block - 1) // per_block, nchunks, chunk, c
    cdef int nthreads = num_threads()
    if nthreads <= 1 or n < 2 * GRAIN_SIZE:
        fn(out, 0, nblocks, n, ctx)
        return False
    nchunks = n // GRAIN_SIZE
    if nchunks > nthreads:
        nchunks = nthreads
    chunk = (nblocks + nchunks - 1) // nchunks
    for c in prange(nchunks, num_threads=nthreads, schedule="static"):
        fn(out, c * chunk, min(nblocks, (c + 1) * chunk), n, ctx)
    return True


cdef int _check_out(TensorBase out, str fn) except -1:
    if not out._storage.device.is_cpu:
        raise NotImplementedError(f"{fn}: random draws on {out.device} need the CUDA backend")
    if not is_contiguous_c(out._ndim, out._sizes, out._strides):
        raise ValueError(f"{fn}: the kernels fill fresh contiguous tensors; got one with shape "
                         f"{out.shape} and strides {out.stride()}")
    if not out._storage.writable:
        raise ValueError(f"{fn}: the destination is read-only")
    return 0


cdef void _set_key(DrawCtx* ctx, uint64_t seed, uint64_t offset) noexcept:
    ctx.key[0] = <uint32_t>seed
    ctx.key[1] = <uint32_t>(seed >> 32)
    ctx.offset = offset


cdef Py_ssize_t _draw(block_fn fn, TensorBase out, Py_ssize_t n, Py_ssize_t per_block,
                      DrawCtx* ctx) except -1:
    """Run the draw over out's memory; return the number of blocks used."""
    cdef char* data = out._data()
    if n < GRAIN_SIZE:  # small draws keep the GIL: releasing it costs more
        run_blocks(fn, data, n, per_block, ctx)
    else:
        with nogil:
            run_blocks(fn, data, n, per_block, ctx)
    out._storage.version += 1
    return (n + per_block - 1) // per_block


# =============================================================================================
# Python entry points: fill a fresh tensor, return how many blocks the draw used
# =============================================================================================

def philox(counter, key):
    """Philox4x32-10 of a 4-word ``counter`` and a 2-word ``key``, as a tuple of 4 ints.

    The bare bijection that every draw is built on (see Note [Counter-based random numbers]).

    Examples
    --------
    >>> from strided._cpu.random import philox
    >>> [hex(w) for w in philox((0, 0, 0, 0), (0, 0))]
    ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
    """
    cdef uint32_t c[4]
    cdef uint32_t k[2]
    cdef uint32_t r[4]
    cdef int i
    if len(counter) != 4 or len(key) != 2:
        raise ValueError(f"philox: the counter has 4 words and the key 2; got {len(counter)} "
                         f"and {len(key)}")
    for i in range(4):
        c[i] = counter[i]
    for i in range(2):
        k[i] = key[i]
    philox4x32_10(c, k, r)
    return (r[0], r[1], r[2], r[3])


def uniform_fill(TensorBase out, uint64_t seed, uint64_t offset, double low, double high):
    """Fill ``out`` (float or complex, contiguous) with uniform values in [low, high), drawn
    from blocks ``offset, offset + 1, ...`` under key ``seed``; return the blocks used.

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.random import uniform_fill
    >>> uniform_fill(strided.empty(5, dtype="float32"), seed=0, offset=0, low=0.0, high=1.0)
    2
    """
    cdef DrawCtx ctx
    cdef int num = out.dtype.num
    cdef Py_ssize_t n = out._numel
    _check_out(out, "uniform")
    if not low < high:
        raise ValueError(f"uniform: low must be < high, got low={low}, high={high}")
    if not high - low < INFINITY:
        raise ValueError(f"uniform: high - low overflows float64 (low={low}, high={high})")
    _set_key(&ctx, seed, offset)
    ctx.a = low
    ctx.b = high - low
    ctx.high = high
    if num == kComplex64 or num == kComplex128:
        n *= 2  # fill the real and imaginary parts as one float array
    if num == kFloat32 or num == kComplex64:
        if not -INFINITY < <float>low < <float>high < INFINITY:
            raise ValueError(f"uniform: [{low}, {high}) is empty in float32 (low and high are "
                             "the same float32 value) or outside float32's range")
        return _draw(uniform_f32_loop, out, n, 4, &ctx)
    if num == kFloat64 or num == kComplex128:
        return _draw(uniform_f64_loop, out, n, 2, &ctx)
    raise TypeError(f"uniform: dtype {out.dtype.name} is not a floating dtype")


def normal_fill(TensorBase out, uint64_t seed, uint64_t offset, mean, double std):
    """Fill ``out`` (float or complex, contiguous) with normal values of mean ``mean`` and
    standard deviation ``std`` per float (a complex ``mean`` sets the real and imaginary
    parts' means apart); return the blocks used. See Note [Box-Muller].

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.random import normal_fill
    >>> normal_fill(strided.empty(5), seed=0, offset=0, mean=0.0, std=1.0)
    3
    """
    cdef DrawCtx ctx
    cdef int num = out.dtype.num
    cdef Py_ssize_t n = out._numel
    cdef double complex m = mean
    _check_out(out, "normal")
    if not std >= 0:
        raise ValueError(f"normal: std must be >= 0, got {std}")
    _set_key(&ctx, seed, offset)
    ctx.b = std
    if num == kComplex64 or num == kComplex128:
        n *= 2
        ctx.a = m.real
        ctx.a_odd = m.imag
    else:
        if m.imag != 0:
            raise TypeError(f"normal: a complex mean needs a complex dtype, not "
                            f"{out.dtype.name}")
        ctx.a = ctx.a_odd = m.real
    if num == kFloat32 or num == kComplex64:
        return _draw(normal_f32_loop, out, n, 4, &ctx)
    if num == kFloat64 or num == kComplex128:
        return _draw(normal_f64_loop, out, n, 2, &ctx)
    raise TypeError(f"normal: dtype {out.dtype.name} is not a floating dtype")


def integers_fill(TensorBase out, uint64_t seed, uint64_t offset, low, high):
    """Fill ``out`` (integer or bool, contiguous) with integers in [low, high), which the
    caller has checked against the dtype's range; return the blocks used. See Note [Unbiased
    bounded integers].

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.random import integers_fill
    >>> integers_fill(strided.empty(5, dtype="int8"), seed=0, offset=0, low=-3, high=3)
    3
    """
    cdef DrawCtx ctx
    cdef int num = out.dtype.num
    _check_out(out, "integers")
    if num not in (kBool, kInt8, kInt16, kInt32, kInt64, kUInt8, kUInt16, kUInt32, kUInt64):
        raise TypeError(f"integers: dtype {out.dtype.name} is not an integer dtype")
    if not low < high or high - low > 2**64:
        raise ValueError(f"integers: need low < high and high - low <= 2**64, got low={low}, "
                         f"high={high}")
    _set_key(&ctx, seed, offset)
    ctx.num = num
    ctx.low_bits = low % 2**64
    ctx.range_ = (high - low) % 2**64
    ctx.wide = high - low > 2**32
    return _draw(integers_loop, out, out._numel, 1 if ctx.wide else 2, &ctx)


cdef void _permutation(int64_t* out, Py_ssize_t n, const DrawCtx* ctx) noexcept nogil:
    """Fisher-Yates: for i = n-1 .. 1, swap out[i] with out[j], j uniform in [0, i]; j comes
    from the 64-bit word i of the draw (two per block), so it is still a pure function of
    (seed, offset, i). Serial: each swap depends on the ones before."""
    cdef uint32_t r[4]
    cdef Py_ssize_t i, j, have = -1
    cdef int64_t t
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        if i // 2 != have:  # two steps per block
            have = i // 2
            _block(ctx, have, r)
        j = <Py_ssize_t>_below(_word64(r[2 * (i % 2)], r[2 * (i % 2) + 1]), <uint64_t>(i + 1))
        t = out[i]
        out[i] = out[j]
        out[j] = t


def permutation_fill(TensorBase out, uint64_t seed, uint64_t offset):
    """Fill the int64 1-D ``out`` of length n with a random permutation of range(n); return
    the blocks used.

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.random import permutation_fill
    >>> out = strided.empty(4, dtype="int64")
    >>> permutation_fill(out, seed=0, offset=0)
    2
    >>> sorted(out.tolist())
    [0, 1, 2, 3]
    """
    cdef DrawCtx ctx
    cdef Py_ssize_t n = out._numel
    cdef int64_t* data
    _check_out(out, "permutation")
    if out.dtype.num != kInt64 or out._ndim != 1:
        raise TypeError("permutation: the output must be a 1-D int64 tensor")
    _set_key(&ctx, seed, offset)
    data = <int64_t*>out._data()
    with nogil:
        _permutation(data, n, &ctx)
    out._storage.version += 1
    return (n + 1) // 2
