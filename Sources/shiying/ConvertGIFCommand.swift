import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying convert IN --to gif (-o OUT.gif | --library DIR) [--fps N] [--size PX]
/// [--colors N] [--dither A] [--json]`: a video or a Motion Photo's movie as an animated GIF.
enum ConvertGIFCommand {
    static func run(_ input: String, _ parsed: Arguments) throws -> Int32 {
        let fps = try parsed.double("fps", in: 0...120) ?? 15
        let size = try parsed.int("size", in: 0...8192) ?? 640
        let colors = try parsed.int("colors", in: 2...255) ?? 255
        let dither = try parsed.double("dither", in: 0...128) ?? 2
        let progress = StderrProgress(label: "convert")
        let named = parsed.options["o"] ?? parsed.options["output"]
        if let dir = parsed.options["library"] {
            let library = try PhotoLibrary(at: dir)
            let staged = library.stagingPath(extension: "gif")
            let report: Conversion.GIFReport
            do {
                report = try Conversion.videoToGIFBlocking(input, to: staged, maxWidth: size, maxHeight: size, fps: fps,
                                                   colors: colors, dither: dither, progress: progress.report)
            } catch {
                unlink(staged)
                progress.finish()
                throw error
            }
            progress.finish()
            let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
            let result = try blocking {
                try await LibraryWorkflows.deposit(converted: staged, from: input, into: library,
                                                   name: named.map { ($0 as NSString).lastPathComponent } ?? "\(stem).gif")
            }
            if parsed.has("json") {
                print(try JSONReport.line(LibraryExitJSON(result, conversion: report)))
            } else {
                print("\(result.files.joined(separator: " ")): asset \(result.id) in 「\(result.album)」")
            }
            return 0
        }
        guard let output = named else { throw UsageError("-o OUT.gif is required") }
        let report = try Conversion.videoToGIFBlocking(input, to: output, maxWidth: size, maxHeight: size, fps: fps,
                                               colors: colors, dither: dither, progress: progress.report)
        progress.finish()
        if parsed.has("json") {
            print(try JSONReport.line(report))
        } else {
            print("\(output): gif \(report.width)x\(report.height), \(report.frames) frames, \(report.bytes) bytes")
        }
        return 0
    }
}
