/*
 * wakeup.c: what waking a sleeping process costs on this machine, with no
 * PostgreSQL.  Two processes take turns, each waking the other and then
 * sleeping until woken, as a backend and the storage worker do when
 * neither polls: once the way PostgreSQL 15's latches wake a process on
 * Linux (a flag in shared memory, kill(SIGURG), a handler that writes to a
 * self-pipe, epoll_wait on it), and once with a futex on the flag.  Each
 * is run with the two processes free to use every CPU, and both on one
 * CPU (a busy machine, where the woken process waits for the waker's CPU).
 *
 *   wakeup [ROUND_TRIPS]
 *
 * prints "wakeup_<how>_<cpus> WALL_US CPU_US" lines: the wall time of a
 * round trip (two wake-ups) and the CPU of one wake-up, both processes'
 * user and system time included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct Shared
{
	atomic_int	set[2];			/* a wake-up for process i is pending */
	atomic_int	sleeping[2];	/* process i may be asleep */
	pid_t		pid[2];
	double		child_cpu_us;
} Shared;

static Shared *sh;
static int	me;
static int	self_pipe[2];
static int	epfd;

static double
cpu_us(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec * 1e6 + r.ru_utime.tv_usec +
		r.ru_stime.tv_sec * 1e6 + r.ru_stime.tv_usec;
}

static void
on_sigurg(int signo)
{
	int			save = errno;
	char		c = 0;

	(void) signo;
	if (write(self_pipe[1], &c, 1) < 0)
	{
		/* the pipe is full: a wake-up is pending anyway */
	}
	errno = save;
}

/*
 * Sleep until woken: the flag is checked again after "sleeping" is set, as
 * WaitLatch does, so that a wake-up in between is not lost.  Then sleep
 * on the self-pipe (the latch's way) or on the futex.
 */
static void
wait_woken(bool use_futex)
{
	for (;;)
	{
		struct epoll_event ev;
		char		buf[16];

		if (atomic_exchange(&sh->set[me], 0))
			return;
		atomic_store(&sh->sleeping[me], 1);
		if (atomic_exchange(&sh->set[me], 0))
		{
			atomic_store(&sh->sleeping[me], 0);
			return;
		}
		if (use_futex)
			syscall(SYS_futex, &sh->sleeping[me], FUTEX_WAIT, 1, NULL, NULL, 0);
		else
		{
			(void) epoll_wait(epfd, &ev, 1, -1);
			while (read(self_pipe[0], buf, sizeof(buf)) > 0)
				;
		}
		atomic_store(&sh->sleeping[me], 0);
	}
}

/* Wake the other process, if it may be asleep: SetLatch's kill, or the futex. */
static void
wake(int other, bool use_futex)
{
	atomic_store(&sh->set[other], 1);
	if (use_futex)
	{
		if (atomic_exchange(&sh->sleeping[other], 0))
			syscall(SYS_futex, &sh->sleeping[other], FUTEX_WAKE, 1, NULL, NULL, 0);
	}
	else if (atomic_load(&sh->sleeping[other]))
		kill(sh->pid[other], SIGURG);
}

static void
measure(const char *how, bool use_futex, bool one_cpu, long n)
{
	struct timespec a,
				b;
	pid_t		child;
	double		cpu0;

	memset(sh, 0, sizeof(*sh));
	sh->pid[0] = getpid();
	clock_gettime(CLOCK_MONOTONIC, &a);
	child = fork();
	if (child < 0)
	{
		perror("fork");
		exit(1);
	}
	me = child == 0 ? 1 : 0;
	if (me == 1)
		sh->pid[1] = getpid();
	if (one_cpu)
	{
		cpu_set_t	set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (pipe2(self_pipe, O_NONBLOCK) != 0 || (epfd = epoll_create1(0)) < 0)
	{
		perror("pipe2 or epoll_create1");
		exit(1);
	}
	{
		struct epoll_event ev = {.events = EPOLLIN};

		epoll_ctl(epfd, EPOLL_CTL_ADD, self_pipe[0], &ev);
	}
	/* both sides ready before the first wake-up */
	while (sh->pid[1] == 0)
		usleep(1000);
	usleep(20000);
	cpu0 = cpu_us();
	if (me == 0)
		clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
	{
		if (me == 0)
		{
			wake(1, use_futex);
			wait_woken(use_futex);
		}
		else
		{
			wait_woken(use_futex);
			wake(0, use_futex);
		}
	}
	if (me == 1)
	{
		sh->child_cpu_us = cpu_us() - cpu0;
		_exit(0);
	}
	waitpid(child, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("wakeup_%s_%s %.2f %.2f\n", how, one_cpu ? "onecpu" : "anycpu",
		   ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3) / n,
		   (cpu_us() - cpu0 + sh->child_cpu_us) / (2.0 * n));
	close(self_pipe[0]);
	close(self_pipe[1]);
	close(epfd);
}

int
main(int argc, char **argv)
{
	long		n = argc > 1 ? atol(argv[1]) : 50000;
	struct sigaction sa;

	sh = mmap(NULL, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
	{
		perror("mmap");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigurg;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGURG, &sa, NULL);
	measure("signal", false, false, n);
	measure("futex", true, false, n);
	measure("signal", false, true, n);
	measure("futex", true, true, n);
	return 0;
}
