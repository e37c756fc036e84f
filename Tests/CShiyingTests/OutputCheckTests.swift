// sy_output_check, the public pre-flight of every writer (sy_base.h): an output that is one of the inputs under
// any name, or not a regular file, is refused before any work; a new or ordinary existing file is allowed. The CLI
// tests (CLIHostileOutputTests) reach it through the commands; these call it directly.
import CShiying
import Foundation
import Testing

@Suite("sy_output_check: outputs that are inputs or special files are refused before any work")
struct OutputCheckTests {
    /// A fresh folder holding `in.jpg` (a few bytes: the check reads no content).
    static func folder(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "shiying-output-check-\(getpid())-\(name)"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: dir + "/in.jpg"))
        return dir
    }

    /// The check's status and message for `output` against the one input `input`.
    static func check(_ output: String, input: String) -> (sy_status, String) {
        var err = sy_error()
        let st = withCStringArray([input]) { sy_output_check(output, $0, 1, &err) }
        return (st, message(err))
    }

    @Test("the input under another spelling, a symlink or a hard link is refused (SY_E_USAGE, naming the output)")
    func inputUnderAnotherName() throws {
        let dir = try Self.folder("names")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.jpg"
        try FileManager.default.createSymbolicLink(atPath: dir + "/sym.jpg", withDestinationPath: input)
        #expect(link(input, dir + "/hard.jpg") == 0)
        for output in [dir + "/./in.jpg", dir + "/../" + (dir as NSString).lastPathComponent + "/in.jpg",
                       dir + "/sym.jpg", dir + "/hard.jpg"] {
            let (st, text) = Self.check(output, input: input)
            #expect(st == SY_E_USAGE && text.contains(output), "\(output): \(st) \(text)")
        }
    }

    @Test("a folder, a FIFO, a socket or a device at the output path is refused; a new or ordinary file is not")
    func specialFiles() throws {
        let dir = try Self.folder("special")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.jpg"
        try FileManager.default.createDirectory(atPath: dir + "/folder.jpg", withIntermediateDirectories: false)
        #expect(mkfifo(dir + "/fifo.jpg", 0o644) == 0)
        let sock = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(sock) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let socketPath = dir + "/socket.jpg"
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0, "bind: \(String(cString: strerror(errno)))")
        for (output, says) in [(dir + "/folder.jpg", "is a directory"), (dir + "/fifo.jpg", "FIFO"),
                               (socketPath, "socket"), ("/dev/null", "device")] {
            let (st, text) = Self.check(output, input: input)
            #expect(st == SY_E_USAGE && text.contains(output) && text.contains(says), "\(output): \(st) \(text)")
        }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dir + "/old.jpg"))
        for output in [dir + "/new.jpg", dir + "/old.jpg"] {
            let (st, text) = Self.check(output, input: input)
            #expect(st == SY_OK, "\(output): \(text)")
        }
        let (missing, text) = Self.check(dir + "/no-such-folder/out.jpg", input: input)
        #expect(missing == SY_E_IO && text.contains("no-such-folder"), "\(text)")
    }
}
