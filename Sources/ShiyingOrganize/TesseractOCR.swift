// Tesseract (Debian's tesseract-ocr with the chi_sim and eng models) as the
// OCR engine behind a scan with OCR; the Life rules only read its text (SPEC D9).
import Foundation

public enum TesseractOCR {
    /// The installed `tesseract`, nil when there is none.
    public static var executable: String? {
        ["/usr/bin/tesseract", "/usr/local/bin/tesseract"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The text Tesseract reads in `path` (Chinese and English, automatic page
    /// layout), trimmed; nil when none is found, Tesseract fails on the file
    /// or is not installed.
    /// - Throws: when the process cannot be started.
    public static func recognize(_ path: String) throws -> String? {
        guard let exe = executable else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: exe)
        process.arguments = [path, "stdout", "-l", "chi_sim+eng", "--psm", "3"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
