#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Peak resident-set measurement of this process, per job (Linux):
/// write `5` to `/proc/self/clear_refs` to restart the peak, then read
/// `VmHWM` (peak) and `VmRSS` (now) from `/proc/self/status`.
public enum ProcessMemory {
    /// Resident set now and its high-water mark, in bytes.
    public struct Sample: Sendable {
        /// The resident set now, in bytes.
        public var residentBytes: UInt64
        /// The resident set's high-water mark, in bytes.
        public var peakBytes: UInt64
    }

    /// Restarts the peak at the current resident set. Returns false where unsupported.
    @discardableResult
    public static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// Reads the process's resident set and its peak now.
    public static func sample() -> Sample {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return Sample(residentBytes: 0, peakBytes: 0)
        }
        func kib(_ key: String) -> UInt64 {
            for line in text.split(separator: "\n") where line.hasPrefix(key) {
                let digits = line.dropFirst(key.count).filter(\.isNumber)
                return (UInt64(digits) ?? 0) * 1024
            }
            return 0
        }
        return Sample(residentBytes: kib("VmRSS:"), peakBytes: kib("VmHWM:"))
    }

    /// Runs `body` and returns its result with the peak RSS growth during it.
    public static func measure<T>(_ body: () throws -> T) rethrows -> (T, peakDeltaBytes: UInt64) {
        resetPeak()
        let before = sample().residentBytes
        let result = try body()
        let after = sample()
        return (result, after.peakBytes > before ? after.peakBytes - before : 0)
    }
}
