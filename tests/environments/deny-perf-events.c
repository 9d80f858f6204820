/*
 * deny-perf-events COMMAND [ARGS...]
 *
 * Runs COMMAND the way Docker's default seccomp profile runs a container:
 * perf_event_open(2) fails with EPERM, every other system call works. The
 * filter is inherited by every child and cannot be lifted, so a whole
 * `cargo bench` (or test suite) runs under it. Built by .ci/run:
 *
 *   cc -O2 -o deny-perf-events tests/environments/deny-perf-events.c
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "deny-perf-events knows x86_64 and aarch64 only"
#endif

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: deny-perf-events COMMAND [ARGS...]\n");
        return 2;
    }
    struct sock_filter filter[] = {
        /* A call of another architecture's ABI is refused outright. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {
        .len = sizeof(filter) / sizeof(filter[0]),
        .filter = filter,
    };
    /* Needed to install a filter without CAP_SYS_ADMIN; harmless as root. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        perror("deny-perf-events: PR_SET_NO_NEW_PRIVS");
        return 2;
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("deny-perf-events: PR_SET_SECCOMP");
        return 2;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "deny-perf-events: cannot run %s: ", argv[1]);
    perror(NULL);
    return 127;
}
