/*  =========================================================================
    drover_getpid - the drover process's getpid(2), answered from memory

    libzmq checks whether the process forked before every wait on and every
    wake-up of a socket's mailbox (signaler_t: `pid != getpid ()`), and the
    C library makes each check a system call. In the broker that is five
    or six a heartbeat on the main thread and one on the I/O thread, at over
    a microsecond each on these machines: about as much as every other
    system call of a heartbeat together (docs/performance.md).

    This executable defines getpid, so libzmq's calls (and ours) come here:
    the pid is read once at start and again in the child of every fork(2),
    so libzmq still sees a fork. A child started with clone(CLONE_VM) that
    called getpid before exec would see its parent's pid: the worker's
    spawner (src/worker/drover_spawner.c, s_child) calls no getpid there.
    =========================================================================
*/

#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>

static pid_t s_pid;             //  this process's pid, 0 until known

//  Read the pid from the kernel into s_pid
static void
s_learn_pid (void)
{
    __atomic_store_n (&s_pid, (pid_t) syscall (SYS_getpid), __ATOMIC_RELAXED);
}

//  At start, before any thread: learn the pid, and learn it again in the
//  child of every fork
__attribute__ ((constructor)) static void
s_getpid_init (void)
{
    s_learn_pid ();
    pthread_atfork (NULL, NULL, s_learn_pid);
}

//  The process's pid, without a system call
pid_t
getpid (void)
{
    pid_t pid = __atomic_load_n (&s_pid, __ATOMIC_RELAXED);
    return pid? pid: (pid_t) syscall (SYS_getpid);
}
