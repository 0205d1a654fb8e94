//===- LargeBuffer.h - memory for weights and arenas ------------*- C++ -*-===//
//
// Buffers of megabytes (prepacked weights, activation arenas) as mapped
// anonymous pages, from 2 MiB up, aligned to 2 MiB and (weights) advised
// as transparent huge pages, so that their first touch takes a page fault per
// 2 MiB rather than per 4 KiB (a fault costs tens of microseconds on a VM:
// ResNet-50's 98 MB of prepacked weights took ~25k of them) and the
// kernels streaming them miss the TLB less. Where the kernel does not give
// huge pages (transparent_hugepage=never) they are plain pages.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_LARGEBUFFER_H
#define TGC_RUNTIME_LARGEBUFFER_H

#include <cstddef>
#include <initializer_list>
#include <memory>

namespace tgc::runtime {

/// `bytes` of memory aligned to at least 64 bytes (from 2 MiB up a mapping,
/// see above, advised as huge pages unless `hugePages` is false;
/// aligned_alloc below: small buffers reuse what the heap freed), freed
/// when the last owner goes. With `populate` its pages are all faulted in
/// at once (a first run then takes no fault) and it is zeroed; without,
/// only a mapping is. Null when out of memory. Activation arenas take 4 KiB
/// pages: populated as huge pages, batch-8 ResNet-50's 50 MB arena made its
/// cold start slower on a VM (huge pages there are often fresh host memory).
std::shared_ptr<char> allocateLargeBuffer(size_t bytes, bool populate = false,
                                          bool hugePages = true);

/// Lets go of the whole pages inside [data, data + size) (madvise
/// DONTNEED): a file mapping's come back from the file if read again, an
/// anonymous mapping's (or the heap's) as zeros.
void releaseWholePages(const void *data, size_t size);

/// Returns the heap's free pages to the system (glibc's malloc_trim; a
/// no-op elsewhere). A compile calls it where large temporaries were
/// freed (the ONNX protobuf's copy of the weights, the pass pipeline's
/// scratch): glibc keeps freed chunks below its mapping threshold resident
/// in the heap, beside the weights mapped after them.
void releaseFreedHeapMemory();

/// Lets go of the resident pages of the loaded objects (executable or
/// shared libraries) whose code contains `functions`, each object once:
/// their executable, read-only segments, whose pages come back from the
/// file when run again (madvise DONTNEED on a private file mapping never
/// written). A tool calls it once a compile is done: the compiler's code,
/// tens of megabytes that its start-up and passes touched, stays out of
/// the process's footprint while the plan runs. Returns the bytes of
/// address range released (0 for addresses in no loaded object, or off
/// Linux).
size_t releaseCodePages(std::initializer_list<const void *> functions);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_LARGEBUFFER_H
