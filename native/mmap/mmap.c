/*
 * Read-only shared memory maps of files as Node Buffers, through Node-API
 * (ABI-stable: one build serves every Node version that has Node-API 8).
 *
 * map(fd, length): maps `length` bytes of `fd` from offset 0, PROT_READ,
 * MAP_SHARED. The Buffer's memory is the map; it is unmapped when the
 * Buffer is collected. Length 0 gives an empty Buffer.
 * advise(buffer, advice): madvise over the whole Buffer (advice: one of
 * the constants exported below).
 * pageOutFiles(): MADV_PAGEOUT over the process' read-only file mappings.
 * dropFilePages(): MADV_DONTNEED over the read-only private file mappings
 * the process holds no copied page of: lets go of the pages it shares.
 * limitHeap(mmapThreshold): glibc's mallopt M_MMAP_THRESHOLD (nothing
 * elsewhere).
 * memfd(name): an anonymous memory file (memfd_create), for a shared object
 * that is loaded without being written to disk.
 * c23Shim: true where this build defines glibc 2.38's __isoc23_strtol,
 * __isoc23_strtoul and __isoc23_sscanf itself (glibc older than 2.38), for
 * binaries built against a newer glibc (see src/http/uws-glibc.ts).
 * Errors are thrown with the errno's name in `code` (ENOMEM, EBADF, ...).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <node_api.h>

#define CHECK(env, call)                                                    \
  do {                                                                      \
    if ((call) != napi_ok) {                                                \
      napi_throw_error((env), NULL, "strata_mmap: Node-API call failed");  \
      return NULL;                                                          \
    }                                                                       \
  } while (0)

static const char *errno_name(int e) {
  switch (e) {
    case EACCES: return "EACCES";
    case EAGAIN: return "EAGAIN";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case ENFILE: return "ENFILE";
    case ENODEV: return "ENODEV";
    case ENOMEM: return "ENOMEM";
    case EOVERFLOW: return "EOVERFLOW";
    case EPERM: return "EPERM";
    default: return "EIO";
  }
}

static napi_value throw_errno(napi_env env, const char *what, int e) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(e));
  napi_throw_error(env, errno_name(e), message);
  return NULL;
}

static void unmap(napi_env env, void *data, void *hint) {
  (void)env;
  munmap(data, (size_t)(uintptr_t)hint);
}

static napi_value map(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "map(fd, length) takes two numbers");
    return NULL;
  }
  int32_t fd;
  double length;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_get_value_double(env, argv[1], &length) != napi_ok
      || fd < 0 || length < 0 || length != (double)(size_t)length) {
    napi_throw_type_error(env, NULL, "map(fd, length): fd a descriptor, length a whole number of bytes");
    return NULL;
  }
  napi_value buffer;
  if (length == 0) {
    void *none;
    CHECK(env, napi_create_buffer(env, 0, &none, &buffer));
    return buffer;
  }
  size_t size = (size_t)length;
  void *at = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  if (at == MAP_FAILED) return throw_errno(env, "mmap", errno);
  if (napi_create_external_buffer(env, size, at, unmap, (void *)(uintptr_t)size, &buffer) != napi_ok) {
    munmap(at, size);
    napi_throw_error(env, NULL, "strata_mmap: could not make a Buffer of the map");
    return NULL;
  }
  return buffer;
}

static napi_value advise(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *data;
  size_t size;
  int32_t advice;
  if (argc < 2 || napi_get_buffer_info(env, argv[0], &data, &size) != napi_ok || napi_get_value_int32(env, argv[1], &advice) != napi_ok) {
    napi_throw_type_error(env, NULL, "advise(buffer, advice) takes a Buffer and a number");
    return NULL;
  }
  if (size > 0 && madvise(data, size, advice) != 0) return throw_errno(env, "madvise", errno);
  return NULL;
}

// Gives the C heap's free memory back to the system (glibc's malloc_trim):
// buffers Node allocated with malloc and freed stay in glibc's arenas,
// resident, until trimmed. True if any memory went back; false elsewhere.
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#ifdef __GLIBC__
  released = malloc_trim(0);
#endif
  napi_value result;
  CHECK(env, napi_get_boolean(env, released != 0, &result));
  return result;
}

// Fixes glibc's mmap threshold (mallopt; false elsewhere). A fixed
// threshold ends glibc's dynamic one, which rises to the largest block
// freed (up to 32 MiB) and then serves such blocks from the arenas, where
// they stay resident after their free.
static napi_value limit_heap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t threshold;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &threshold) != napi_ok || threshold <= 0) {
    napi_throw_type_error(env, NULL, "limitHeap(mmapThreshold) takes a positive number");
    return NULL;
  }
  int done = 0;
#ifdef __GLIBC__
  done = mallopt(M_MMAP_THRESHOLD, threshold) == 1;
#endif
  napi_value result;
  CHECK(env, napi_get_boolean(env, done, &result));
  return result;
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

// Asks the kernel to reclaim the pages of every file mapping the process
// cannot write (the node binary's code, shared libraries, read-only maps of
// data files): clean pages, read back from the file when touched again.
// Pages another process maps too stay (the kernel skips them). Answers the
// bytes of the mappings advised; -1 where the kernel lacks MADV_PAGEOUT
// (before Linux 5.4) or /proc/self/maps cannot be read.
static napi_value page_out_files(napi_env env, napi_callback_info info) {
  (void)info;
  double advised = -1;
  FILE *maps = fopen("/proc/self/maps", "r");
  if (maps != NULL) {
    char line[4352];
    advised = 0;
    while (fgets(line, sizeof line, maps) != NULL) {
      uintptr_t start, end;
      char perms[5];
      int path_at = 0;
      if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms, &path_at) < 3 || path_at == 0) continue;
      if (line[path_at] != '/' || perms[1] == 'w') continue;
      if (madvise((void *)start, end - start, MADV_PAGEOUT) == 0) {
        advised += (double)(end - start);
      } else if (errno == EINVAL && advised == 0) {
        advised = -1;
        break;
      }
    }
    fclose(maps);
  }
  napi_value result;
  CHECK(env, napi_create_double(env, advised, &result));
  return result;
}

// MADV_PAGEOUT skips pages another process maps too: beside another Node
// process, the node binary's code pages this one touched once stay mapped
// (and in its RSS) for good. MADV_DONTNEED lets this process go of them:
// they stay in the page cache for the others, and fault back in, from
// there, when touched again. Only where that loses nothing: read-only
// private file mappings holding no page the process copied (smaps'
// Anonymous: 0 kB; a copied page, such as relocated data made read-only,
// would be read back from the file, not as it was). Answers the bytes of
// the mappings advised; -1 where /proc/self/smaps cannot be read.
static napi_value drop_file_pages(napi_env env, napi_callback_info info) {
  (void)info;
  double advised = -1;
  FILE *smaps = fopen("/proc/self/smaps", "r");
  uintptr_t *ranges = NULL;
  size_t n = 0, cap = 0;
  if (smaps != NULL) {
    char line[4352];
    uintptr_t start = 0, end = 0;
    int eligible = 0;
    while (fgets(line, sizeof line, smaps) != NULL) {
      uintptr_t s, e;
      char perms[5];
      int path_at = 0;
      if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &s, &e, perms, &path_at) >= 3) {
        // A mapping's first line (its fields are "Name: value" lines after it, which do not read as a range).
        start = s;
        end = e;
        eligible = path_at > 0 && line[path_at] == '/' && perms[1] != 'w' && perms[3] == 'p';
        continue;
      }
      unsigned long kb;
      if (eligible && sscanf(line, "Anonymous: %lu kB", &kb) == 1) {
        eligible = 0;
        if (kb != 0) continue;
        if (n == cap) {
          size_t next = cap == 0 ? 256 : cap * 2;
          uintptr_t *grown = realloc(ranges, next * 2 * sizeof *ranges);
          if (grown == NULL) break;
          ranges = grown;
          cap = next;
        }
        ranges[2 * n] = start;
        ranges[2 * n + 1] = end;
        n++;
      }
    }
    fclose(smaps);
    advised = 0;
    for (size_t i = 0; i < n; i++) {
      if (madvise((void *)ranges[2 * i], ranges[2 * i + 1] - ranges[2 * i], MADV_DONTNEED) == 0) advised += (double)(ranges[2 * i + 1] - ranges[2 * i]);
    }
    free(ranges);
  }
  napi_value result;
  CHECK(env, napi_create_double(env, advised, &result));
  return result;
}

static napi_value memfd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char name[64];
  size_t length;
  if (argc < 1 || napi_get_value_string_utf8(env, argv[0], name, sizeof name, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "memfd(name) takes a string");
    return NULL;
  }
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return throw_errno(env, "memfd_create", errno);
  napi_value result;
  CHECK(env, napi_create_int32(env, fd, &result));
  return result;
}

#if defined(__GLIBC__) && !__GLIBC_PREREQ(2, 38)
#define C23_SHIM 1
// C23's strtol and strtoul (glibc 2.38) also take a "0b" prefix for base 0
// and 2; everything else is the older functions' behaviour.
static int binary_prefix(const char *s, int base, const char **digits) {
  if (base != 0 && base != 2) return 0;
  while (isspace((unsigned char)*s)) s++;
  if (*s == '+' || *s == '-') s++;
  if (s[0] != '0' || (s[1] != 'b' && s[1] != 'B') || (s[2] != '0' && s[2] != '1')) return 0;
  *digits = s + 2;
  return 1;
}

static int negative(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return *s == '-';
}

__attribute__((visibility("default"))) long __isoc23_strtol(const char *s, char **end, int base) {
  const char *digits;
  if (!binary_prefix(s, base, &digits)) return strtol(s, end, base);
  long magnitude = strtol(digits, end, 2);
  return negative(s) ? -magnitude : magnitude;
}

__attribute__((visibility("default"))) unsigned long __isoc23_strtoul(const char *s, char **end, int base) {
  const char *digits;
  if (!binary_prefix(s, base, &digits)) return strtoul(s, end, base);
  unsigned long magnitude = strtoul(digits, end, 2);
  return negative(s) ? -magnitude : magnitude;
}

// Without C23's %b conversion and "0b" for %i: the callers this serves
// (uWebSockets.js) use neither.
__attribute__((visibility("default"))) int __isoc23_sscanf(const char *s, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsscanf(s, format, args);
  va_end(args);
  return n;
}
#else
#define C23_SHIM 0
#endif

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  CHECK(env, napi_create_function(env, "map", NAPI_AUTO_LENGTH, map, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "map", fn));
  CHECK(env, napi_create_function(env, "advise", NAPI_AUTO_LENGTH, advise, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "advise", fn));
  CHECK(env, napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "trim", fn));
  CHECK(env, napi_create_function(env, "limitHeap", NAPI_AUTO_LENGTH, limit_heap, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "limitHeap", fn));
  CHECK(env, napi_create_function(env, "pageOutFiles", NAPI_AUTO_LENGTH, page_out_files, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "pageOutFiles", fn));
  CHECK(env, napi_create_function(env, "dropFilePages", NAPI_AUTO_LENGTH, drop_file_pages, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "dropFilePages", fn));
  CHECK(env, napi_create_function(env, "memfd", NAPI_AUTO_LENGTH, memfd, NULL, &fn));
  CHECK(env, napi_set_named_property(env, exports, "memfd", fn));
  napi_value shim;
  CHECK(env, napi_get_boolean(env, C23_SHIM, &shim));
  CHECK(env, napi_set_named_property(env, exports, "c23Shim", shim));
  napi_value n;
  CHECK(env, napi_create_int32(env, MADV_DONTNEED, &n));
  CHECK(env, napi_set_named_property(env, exports, "MADV_DONTNEED", n));
  CHECK(env, napi_create_int32(env, MADV_WILLNEED, &n));
  CHECK(env, napi_set_named_property(env, exports, "MADV_WILLNEED", n));
  CHECK(env, napi_create_int32(env, MADV_RANDOM, &n));
  CHECK(env, napi_set_named_property(env, exports, "MADV_RANDOM", n));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
