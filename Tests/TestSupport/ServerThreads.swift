import Foundation

/// Threads of their own for the in-process servers of the tests, as a task executor
/// (`withTaskExecutorPreference`): the concurrency pool has one thread per core, and the suite's synchronous tests
/// (a child process waited for, a corpus indexed) hold those threads for seconds, sometimes for longer than a client's
/// timeout. A server in production has the pool to itself (its blocking work runs on queues of its own); here it gets
/// these threads, which nothing but servers and their tests' clients runs on.
public final class ServerThreads: TaskExecutor, @unchecked Sendable {
    public static let shared = ServerThreads(count: max(4, ProcessInfo.processInfo.activeProcessorCount * 2))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var next = 0

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "test-server-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            // The queue is emptied now and then rather than shifted at every job.
            if next == jobs.count || next > 1_024 {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
