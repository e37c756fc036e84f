import Foundation

/// SPEC C11: what makes two export requests "the same": the same photos in the
/// same order (a different order is a different collage) and the same
/// settings, compared by their canonical JSON (keys sorted) so any `Encodable`
/// settings value works — the still collage's `CollageRequest`, the moving
/// collage's options. Where the result is written is not part of it.
public struct ExportRequestKey: Hashable, Sendable, CustomStringConvertible {
    /// The photos, in cell order.
    public let photos: [String]
    /// The collage's options, in a canonical text form.
    public let settings: String

    /// - Throws: `EncodingError` when `settings` cannot be encoded.
    public init<Settings: Encodable>(photos: [String], settings: Settings) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.photos = photos.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        self.settings = String(decoding: try encoder.encode(settings), as: UTF8.self)
    }

    /// A still collage: its inputs are the photos; everything but the output
    /// path (and the process-memory probe, which changes nothing made) is a setting.
    public init(collage request: CollageRequest) throws {
        var settings = request
        settings.inputs = []
        settings.output = ""
        settings.measureProcessPeak = false
        try self.init(photos: request.inputs, settings: settings)
    }

    public var description: String { "\(photos.count) photos, \(settings)" }
}

/// SPEC C11: one export at a time. `run` with a key that is running or
/// waiting joins that request and gets its result (the joiner's own job is
/// not run); a new key waits until every earlier request has finished, in the
/// order they came. A finished request is forgotten: asking again later is a
/// new save.
///
/// Cancellation (the caller's task): a cancelled caller gets
/// `CancellationError` at once; the request goes on for the callers still
/// waiting on it. When every caller of a request has cancelled, a waiting
/// request is dropped without running, and a running one has its job's task
/// cancelled (the job stops as its work honours cancellation; the next
/// request starts when it has returned, so two jobs never overlap).
///
/// Generic over the job, so the still and the moving collage export share it.
public actor ExportQueue<Key: Hashable & Sendable, Output: Sendable> {
    /// One export job.
    public typealias Job = @Sendable () async throws -> Output

    private struct Request {
        let key: Key
        let job: Job
        var callers: [Int: CheckedContinuation<Output, Error>] = [:]
        var task: Task<Void, Never>?
        /// Running, but every caller left: being stopped, so nobody new joins it.
        var abandoned = false
    }

    private var requests: [Int: Request] = [:]
    private var order: [Int] = [] // waiting requests, oldest first
    private var running: Int?
    private var nextID = 0
    private var started = 0

    /// An empty queue.
    public init() {}

    /// Runs `job` for `key` when its turn comes, or joins the same key's request.
    /// - Throws: what the job threw; `CancellationError` when this caller is cancelled.
    public func run(_ key: Key, _ job: @escaping Job) async throws -> Output {
        let request = joinable(key) ?? enqueue(key, job)
        let caller = newID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, Error>) in
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    dropIfUnwanted(request)
                    return
                }
                requests[request]?.callers[caller] = continuation
                startNext()
            }
        } onCancel: {
            Task { await self.leave(request, caller) }
        }
    }

    /// Requests running or waiting (for tests and a busy indicator).
    public var inFlight: Int { requests.count }

    /// Callers waiting on those requests.
    public var callers: Int { requests.values.reduce(0) { $0 + $1.callers.count } }

    /// How many jobs have been started since the queue was made.
    public var jobsStarted: Int { started }

    private func newID() -> Int {
        nextID += 1
        return nextID
    }

    /// The running or waiting request for `key` that a caller may still join.
    private func joinable(_ key: Key) -> Int? {
        requests.first { $0.value.key == key && !$0.value.abandoned }?.key
    }

    private func enqueue(_ key: Key, _ job: @escaping Job) -> Int {
        let id = newID()
        requests[id] = Request(key: key, job: job)
        order.append(id)
        return id
    }

    private func startNext() {
        guard running == nil else { return }
        while let id = order.first {
            order.removeFirst()
            guard let request = requests[id], !request.callers.isEmpty else {
                requests[id] = nil
                continue
            }
            running = id
            started += 1
            let job = request.job
            requests[id]?.task = Task {
                let result: Result<Output, Error>
                do { result = .success(try await job()) } catch { result = .failure(error) }
                self.finish(id, result)
            }
            return
        }
    }

    private func finish(_ id: Int, _ result: Result<Output, Error>) {
        let callers = requests.removeValue(forKey: id)?.callers ?? [:]
        running = nil
        for continuation in callers.values { continuation.resume(with: result) }
        startNext()
    }

    private func leave(_ id: Int, _ caller: Int) {
        guard let continuation = requests[id]?.callers.removeValue(forKey: caller) else { return }
        continuation.resume(throwing: CancellationError())
        dropIfUnwanted(id)
    }

    /// A request nobody waits for any more: forget it if waiting, stop it if running.
    private func dropIfUnwanted(_ id: Int) {
        guard let request = requests[id], request.callers.isEmpty else { return }
        if running == id {
            requests[id]?.abandoned = true
            request.task?.cancel()
        } else {
            requests[id] = nil
            order.removeAll { $0 == id }
        }
    }
}
