import Foundation

/// Where a fetch may look.
public enum FetchReach: String, Sendable, Codable {
    /// The device and iCloud.
    case network
    /// Only what is already on the device.
    case localOnly
}

/// Gets one photo for a cell. The app's is a photo-library request; tests inject scripted ones.
public protocol CollagePhotoFetching: Sendable {
    /// Fetches `photo` at `size` (or the best rendition `reach` allows),
    /// calling `progress` whenever data arrives — any call counts as progress.
    /// - Returns: a readable file for the cell.
    /// - Throws: when the photo cannot be had; should honour task cancellation
    ///   (one that does not is abandoned, not waited for).
    func fetch(_ photo: String, size: PixelSize, reach: FetchReach,
               progress: @escaping @Sendable (Double) -> Void) async throws -> String
}

/// What a cell is drawn from.
public enum CellSource: Sendable, Equatable {
    /// A fetched file, and which attempt got it.
    case photo(String, reach: FetchReach)
    /// SPEC C12: a neutral grey cell; `reason` says why.
    case grey(reason: String)

    /// True when the cell is painted grey.
    public var isGrey: Bool { if case .grey = self { true } else { false } }
}

/// SPEC C12: fetch at the size the layout needs (which may go to iCloud); on
/// failure try once more asking only what is on the device, and give that up
/// after 3 s without progress — the cell is then grey and the rest exports.
/// The first attempt has no stall limit of its own: it ends when the fetcher
/// answers or the export is cancelled. No photo at all → the export fails.
public struct CollageFetchPolicy<C: Clock>: Sendable where C.Duration == Duration {
    /// SPEC C12: how long the local-only retry may go without progress.
    public static var stallLimit: Duration { .seconds(3) }

    /// The clock its times and deadlines are measured on.
    public let clock: C
    /// What fetches the photos (from the device or the cloud).
    public let fetcher: any CollagePhotoFetching

    /// A fetch policy measuring its deadlines on `clock`.
    public init(clock: C, fetcher: any CollagePhotoFetching) {
        self.clock = clock
        self.fetcher = fetcher
    }

    /// One cell's photo. Never throws for a missing photo (that is a grey cell).
    /// - Throws: `CancellationError` when the task is cancelled.
    public func source(for photo: String, size: PixelSize) async throws -> CellSource {
        let first: String
        switch try await attempt(photo, size: size, reach: .network, stallLimit: nil) {
        case let .fetched(file): return .photo(file, reach: .network)
        case let .failed(error): first = error
        case .stalled: first = "stalled" // not reached: the first attempt has no stall limit
        }
        switch try await attempt(photo, size: size, reach: .localOnly, stallLimit: Self.stallLimit) {
        case let .fetched(file): return .photo(file, reach: .localOnly)
        case let .failed(error): return .grey(reason: "\(photo): \(first); on the device only: \(error)")
        case .stalled: return .grey(reason: "\(photo): \(first); on the device only: no progress for 3 s")
        }
    }

    /// Every cell's source, fetched at once.
    /// - Throws: `ShiyingError` `.invalidInput` when every cell would be grey
    ///   (SPEC C12: nothing to export); `CancellationError` when cancelled.
    public func sources(for cells: [(photo: String, size: PixelSize)]) async throws -> [CellSource] {
        let policy = self
        let sources = try await withThrowingTaskGroup(of: (Int, CellSource).self) { group in
            for (index, cell) in cells.enumerated() {
                group.addTask { (index, try await policy.source(for: cell.photo, size: cell.size)) }
            }
            var out = [CellSource](repeating: .grey(reason: ""), count: cells.count)
            for try await (index, source) in group { out[index] = source }
            return out
        }
        if !sources.isEmpty && sources.allSatisfy(\.isGrey) {
            let first = if case let .grey(reason) = sources[0] { reason } else { "" }
            throw ShiyingError(code: .invalidInput,
                               message: "collage: none of the \(cells.count) photos could be fetched (first: \(first))")
        }
        return sources
    }

    private enum Attempt: Sendable {
        case fetched(String)
        case failed(String)
        case stalled
    }

    /// One fetch, under a no-progress watchdog when `stallLimit` is set. A
    /// stalled or cancelled fetch is told to stop (task cancellation) and
    /// abandoned, never waited for.
    private func attempt(_ photo: String, size: PixelSize, reach: FetchReach,
                         stallLimit: Duration?) async throws -> Attempt {
        let gate = ResumeOnce<Attempt>()
        let lastProgress = Locked(clock.now)
        let clock = self.clock, fetcher = self.fetcher
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Attempt, Error>) in
                gate.attach(continuation)
                let fetch = Task {
                    do {
                        let file = try await fetcher.fetch(photo, size: size, reach: reach) { _ in
                            lastProgress.withLock { $0 = clock.now }
                        }
                        gate.resume(.success(.fetched(file)))
                    } catch {
                        gate.resume(.success(.failed("\(error)")))
                    }
                }
                let watchdog = Task {
                    guard let limit = stallLimit else { return }
                    var wake = lastProgress.withLock { $0 }.advanced(by: limit)
                    while !Task.isCancelled {
                        guard (try? await clock.sleep(until: wake, tolerance: nil)) != nil else { return }
                        let last = lastProgress.withLock { $0 }
                        if last.advanced(by: limit) <= clock.now {
                            gate.resume(.success(.stalled))
                            return
                        }
                        wake = last.advanced(by: limit)
                    }
                }
                gate.whenDone {
                    fetch.cancel()
                    watchdog.cancel()
                }
            }
        } onCancel: {
            gate.resume(.failure(CancellationError()))
        }
    }
}

extension CollageFetchPolicy where C == ContinuousClock {
    /// A fetch policy on the continuous clock.
    public init(fetcher: any CollagePhotoFetching) { self.init(clock: ContinuousClock(), fetcher: fetcher) }
}
