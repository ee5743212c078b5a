// heap_peak.c - the most heap bytes a process holds at once (glibc, LD_PRELOAD).
//
// Counts every malloc/calloc/realloc/aligned_alloc/posix_memalign/memalign by
// its usable size and prints "heap peak: N" to stderr at exit. kiln's model
// objects allocate their buffers with aligned_alloc, so comparing two runs of
// kiln-run that differ only in the model (e.g. --grad with and without
// --remat) shows the difference in the model's peak:
//   cc -O2 -shared -fPIC -o heap_peak.so bench/heap_peak.c
//   LD_PRELOAD=$PWD/heap_peak.so build/bin/kiln-run m.so --input x.npy --cotangent c.npy
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static size_t live, peak;
static void add(void *p) {
  if (p && (live += malloc_usable_size(p)) > peak)
    peak = live;
}
static void sub(void *p) {
  if (p)
    live -= malloc_usable_size(p);
}

void *malloc(size_t n) { void *p = __libc_malloc(n); add(p); return p; }
void *calloc(size_t a, size_t b) { void *p = __libc_calloc(a, b); add(p); return p; }
void *realloc(void *q, size_t n) { sub(q); void *p = __libc_realloc(q, n); add(p); return p; }
void free(void *p) { sub(p); __libc_free(p); }
void *aligned_alloc(size_t a, size_t n) { void *p = __libc_memalign(a, n); add(p); return p; }
void *memalign(size_t a, size_t n) { void *p = __libc_memalign(a, n); add(p); return p; }
int posix_memalign(void **r, size_t a, size_t n) {
  void *p = __libc_memalign(a, n);
  if (!p)
    return 12; // ENOMEM
  add(p);
  *r = p;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  char b[64];
  int k = snprintf(b, sizeof b, "heap peak: %zu\n", peak);
  if (write(2, b, k) < 0) {
  }
}
