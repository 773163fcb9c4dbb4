/*
 * LD_PRELOAD shim for tests: cross-memory attach refused, as under Yama's ptrace_scope 2
 * or a container's seccomp profile. process_vm_readv and process_vm_writev fail with EPERM.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

/* What the rank starts (ASan's symbolizer, in the sanitizer build) must not load the shim. */
__attribute__((constructor)) static void forget_preload(void)
{
    unsetenv("LD_PRELOAD");
}

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long liovcnt, const struct iovec *remote,
                         unsigned long riovcnt, unsigned long flags)
{
    (void)pid, (void)local, (void)liovcnt, (void)remote, (void)riovcnt, (void)flags;
    errno = EPERM;
    return -1;
}

ssize_t process_vm_writev(pid_t pid, const struct iovec *local, unsigned long liovcnt, const struct iovec *remote,
                          unsigned long riovcnt, unsigned long flags)
{
    return process_vm_readv(pid, local, liovcnt, remote, riovcnt, flags);
}
