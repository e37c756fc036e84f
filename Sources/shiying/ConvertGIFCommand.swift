import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying convert IN --to gif (-o OUT.gif | --library DIR) [--fps N] [--size PX]
/// [--colors N] [--dither A] [--json]`: a video or a Motion Photo's movie as an animated GIF.
enum ConvertGIFCommand {
    static func run(_ input: String, _ parsed: ParsedArguments) throws -> Int32 {
        let fps = parsed.double("fps") ?? 15
        let size = parsed.int("size") ?? 640
        let colors = parsed.int("colors") ?? 255
        let dither = parsed.double("dither") ?? 2
        let progress = ProgressReporter(label: "convert")
        let named = parsed.string("output")
        if let named { _ = try outputFormat(named, command: "convert --to gif", formats: ["gif": "gif"]) }
        if let dir = parsed.string("library") {
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
            if parsed.json {
                print(try JSONReport.line(LibraryExitJSON(result, conversion: report)))
            } else {
                print("\(result.files.joined(separator: " ")): asset \(result.id) in 「\(result.album)」")
            }
            return 0
        }
        guard let output = named else { throw UsageError("convert --to gif: -o OUT.gif (or --library DIR) is required") }
        let report: Conversion.GIFReport
        do {
            report = try Conversion.videoToGIFBlocking(input, to: output, maxWidth: size, maxHeight: size, fps: fps,
                                               colors: colors, dither: dither, progress: progress.report)
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        if parsed.json {
            print(try JSONReport.line(report))
        } else {
            print("\(output): gif \(report.width)x\(report.height), \(report.frames) frames, \(report.bytes) bytes")
        }
        return 0
    }
}
