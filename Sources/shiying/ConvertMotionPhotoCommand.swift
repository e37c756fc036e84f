import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying convert STILL MOVIE --to motion-photo (-o OUT.(jpg|heic) | --library DIR) [--reencode-still]
/// [--json]`: a Live pair as one Android Motion Photo (SPEC S3).
enum ConvertMotionPhotoCommand {
    static let formats: KeyValuePairs<String, String> = ["jpg": "jpeg", "jpeg": "jpeg", "heic": "heic", "heif": "heic"]

    static func run(_ still: String, _ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positionals.count == 2 else {
            throw UsageError("convert --to motion-photo: give the Live pair's STILL and MOVIE")
        }
        let movie = parsed.positionals[1]
        let named = parsed.string("output")
        let ext = try named.map { try outputFormat($0, command: "convert --to motion-photo", formats: formats) }
        let progress = ProgressReporter(label: "convert")
        if let dir = parsed.string("library") {
            let library = try PhotoLibrary(at: dir)
            let form = ext ?? (((still as NSString).pathExtension.lowercased() == "heic") ? "heic" : "jpeg")
            let staged = library.stagingPath(extension: form == "heic" ? "heic" : "jpg")
            let report = try write(still, movie, staged, parsed, progress)
            let stem = ((still as NSString).lastPathComponent as NSString).deletingPathExtension
            let result = try blocking {
                try await LibraryWorkflows.deposit(converted: staged, from: still, into: library,
                                                   name: named.map { ($0 as NSString).lastPathComponent }
                                                       ?? "\(stem)_motion.\((staged as NSString).pathExtension)")
            }
            if parsed.json {
                print(try JSONReport.line(LibraryExitJSON(result, conversion: report)))
            } else {
                print("\(result.files.joined(separator: " ")): asset \(result.id) in 「\(result.album)」")
            }
            return 0
        }
        guard let output = named else {
            throw UsageError("convert --to motion-photo: -o OUT.jpg|OUT.heic (or --library DIR) is required")
        }
        let report = try write(still, movie, output, parsed, progress)
        if parsed.json {
            print(try JSONReport.line(report))
        } else {
            print("\(output): motion photo (\(report.container)), movie \(report.movieLength) bytes at \(report.movieOffset), "
                  + "\(report.frames) frames")
        }
        return 0
    }

    private static func write(_ still: String, _ movie: String, _ output: String, _ parsed: ParsedArguments,
                              _ progress: ProgressReporter) throws -> MotionPhoto.FromLiveReport {
        defer { progress.finish() }
        do {
            return try MotionPhoto.fromLiveBlocking(still: still, movie: movie, output: output,
                                                    reencodeStill: parsed.has("reencode-still"),
                                                    allowSDR: parsed.has("allow-sdr"), progress: progress.report)
        } catch let error as ShiyingError where error.code == .unsupported && !parsed.has("reencode-still")
            && error.message.contains("re-encoded") {
            throw ShiyingError(code: error.code, message: error.message + " (--reencode-still)", file: error.file)
        }
    }
}
