import Foundation

/// Threads of their own for the in-process servers of the tests, as a task executor
/// (`withTaskExecutorPreference`): the concurrency pool has one thread per core, and the suite's synchronous tests
/// (a child process waited for, a corpus indexed) hold those threads for seconds, sometimes for longer than a client's
/// timeout. A server in production has the pool to itself (its blocking work runs on queues of its own); here it gets
/// these threads, which nothing but servers and their tests' clients runs on.
public final class ServerThreads: TaskExecutor, @unchecked Sendable {
    public static let shared = ServerThreads(count: max(4, ProcessInfo.processInfo.activeProcessorCount * 2))

    private let condition = NSCondition()
    /// Jobs waiting for a thread: a few at a time, so taking the first is cheap.
    private var jobs: [UnownedJob] = []

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
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
