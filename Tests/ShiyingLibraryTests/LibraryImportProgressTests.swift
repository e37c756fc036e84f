// Issue 24: a library import reports one ShiyingProgress (non-decreasing,
// 1 only at the end) and a cancelled import throws CancellationError and
// leaves nothing catalogued or staged.
import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize
import Testing

/// Every progress value of one import; cancels its task at the first value read.
private final class ImportProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [ShiyingProgress] = []
    private var task: Task<LibraryImportReport, Error>?
    var cancelAtFirst = false

    var all: [ShiyingProgress] { lock.withLock { values } }

    func arm(_ task: Task<LibraryImportReport, Error>) {
        let fire = lock.withLock { () -> Bool in
            self.task = task
            return cancelAtFirst && !values.isEmpty
        }
        if fire { task.cancel() }
    }

    func note(_ value: ShiyingProgress) {
        let task = lock.withLock { () -> Task<LibraryImportReport, Error>? in
            values.append(value)
            return cancelAtFirst ? self.task : nil
        }
        task?.cancel()
    }
}

@Suite("Library import progress and cancellation")
struct LibraryImportProgressTests {
    @Test("a cancelled import catalogues and stages nothing; the next one reports one progress value up to 1")
    func cancelThenProgress() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 4, lives: 1)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        let source = URL(fileURLWithPath: fixture.input)

        let cancelled = ImportProgressLog()
        cancelled.cancelAtFirst = true
        let task = Task { try await library.importFiles([source], reader: EngineMediaReader(), progress: cancelled.note) }
        cancelled.arm(task)
        await #expect { try await task.value } throws: { $0 is CancellationError }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.folder.staging).isEmpty)

        let log = ImportProgressLog()
        let report = try await library.importFiles([source], reader: EngineMediaReader(), progress: log.note)
        #expect(report.imported.count == fixture.expectedAssets, "the cancelled import committed nothing")
        let values = log.all
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        #expect(values.dropLast().allSatisfy { $0.fraction < 1 })
        #expect(values.last == ShiyingProgress(fraction: 1, phase: "done", phaseDone: 1, phaseTotal: 1))
        #expect(Set(values.map(\.phase)) == ["read", "import", "done"])
    }

    @Test("a file URL that is not a file: URL is refused, naming it")
    func refusesWebURL() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        await #expect { _ = try await library.importFiles([URL(string: "https://example.com/a.jpg")!], reader: EngineMediaReader()) }
            throws: { "\($0)".contains("https://example.com/a.jpg") }
        // The workflows' URL forms refuse it the same way, before any work.
        await #expect { _ = try await LibraryWorkflows.convert(URL(string: "https://example.com/b.jpg")!, into: library, format: .jpeg) }
            throws: { "\($0)".contains("https://example.com/b.jpg") }
        await #expect {
            _ = try await LibraryWorkflows.edit(1, recipe: EditRecipe(), in: library,
                                                renderingFrom: URL(string: "https://example.com/c.jpg")!)
        } throws: { "\($0)".contains("https://example.com/c.jpg") }
    }
}
