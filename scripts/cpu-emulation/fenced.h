// Host arrays for the emulated kernels' checks (gemv_check.cpp, trmv_check.cpp,
// saxpy_check.cpp): placed against an inaccessible page, so that a kernel's
// read or write outside them stops the run instead of going unseen.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

// `floats` floats between two inaccessible pages: starting `offset` floats
// after the first, or (at_end) ending right before the second.
struct Fenced {
    char *base = nullptr;
    size_t bytes = 0;
    float *data = nullptr;
    Fenced(size_t floats, int offset, bool at_end) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t inner = ((floats + 8) * 4 + page - 1) / page * page;
        bytes = inner + 2 * page;
        base = static_cast<char *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (base == MAP_FAILED) std::abort();
        mprotect(base, page, PROT_NONE);
        mprotect(base + page + inner, page, PROT_NONE);
        data = at_end ? reinterpret_cast<float *>(base + page + inner) - floats
                      : reinterpret_cast<float *>(base + page) + offset;
    }
    Fenced(const Fenced &) = delete;
    Fenced &operator=(const Fenced &) = delete;
    ~Fenced() { munmap(base, bytes); }
};
