// Issue 24: the library leaves process-wide state alone unless asked — a
// collage must not restart the host app's peak-memory counter (VmHWM).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Shiying
import Testing

@Suite("Process-wide state (issue 24)")
struct ProcessStateTests {
    @Test("Collage.render keeps the process's VmHWM unless measureProcessPeak is set")
    func peakCounterUntouched() async throws {
        let dir = try TempDir("process-state")
        defer { dir.remove() }
        let photos = try await Photos.small()
        // Raise the high-water mark well above anything a small collage needs.
        let size = 512 << 20
        let block = try #require(malloc(size))
        memset(block, 1, size)
        free(block)
        let raised = ProcessMemory.sample().peakBytes
        var request = CollageRequest(layout: .long, inputs: Array(photos.prefix(2)), output: dir.file("a.jpg"))
        let quiet = try await Collage.render(request)
        #expect(quiet.peakRSSDeltaBytes == nil)
        #expect(ProcessMemory.sample().peakBytes >= raised, "the host's peak counter was reset")
        request.measureProcessPeak = true
        request.output = dir.file("b.jpg")
        let measured = try await Collage.render(request)
        #expect(measured.peakRSSDeltaBytes != nil)
        #expect(ProcessMemory.sample().peakBytes < raised, "asked for: the peak restarts at the job")
    }
}
