// The geometry of a *line op*: an op that maps each line of its input along one dim (one line
// per point of the other, *kept*, dims) to a line of a fresh row-major output. The scans
// (scan.cu) and softmax/log_softmax (softmax.cu) are line ops; the host fills the struct in
// strided/cuda/_launch.py (line_geometry), coalescing the kept dims in row-major order so that
// the line number o is the row-major index over them.
#pragma once
#include "common.cuh"

struct LineGeometry {
    int64_t ksizes[STRIDED_MAX_DIMS];    // kept dims, innermost first
    int64_t kstrides[STRIDED_MAX_DIMS];  // the input's byte strides along them
    int64_t x;                           // input address (element [0, ..., 0])
    int64_t y;                           // output address (row-major, see line_out)
    int64_t M;                           // lines
    int64_t L;                           // elements per line in the input
    int64_t sx;                          // the input's byte stride along a line
    int64_t inner;                       // output: elements of the dims after the line's dim
    int64_t Lout;                        // output: L, plus 1 with include_initial
    int64_t chunk;                       // elements of a line per block along gridDim.y
    int32_t nk;
    int32_t initial;                     // scans' include_initial: out[0] is the identity
};

template <typename index_t>
__device__ __forceinline__ index_t kept_offset(const LineGeometry& g, index_t o) {
    if (g.nk == 1) return o * (index_t)g.kstrides[0];
    index_t off = 0;
    for (int d = 0; d < g.nk; ++d) {
        index_t size = (index_t)g.ksizes[d];
        index_t q = o / size;
        off += (o - q * size) * (index_t)g.kstrides[d];
        o = q;
    }
    return off;
}

// The output is a fresh row-major tensor: line o = (a, b), with a the index over the kept dims
// before the line's dim and b over those after it, starts at element a * Lout * inner + b and
// steps by inner. Element i of the input line lands at position i + initial.
template <typename index_t>
__device__ __forceinline__ index_t line_out(const LineGeometry& g, index_t o) {
    index_t inner = (index_t)g.inner;
    index_t a = o / inner;
    return a * (index_t)g.Lout * inner + (o - a * inner);
}

