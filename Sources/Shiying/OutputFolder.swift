// Output folders (a Live pair's, a moving collage's, sample photos'): made
// when missing, with a clear error when they cannot be (a file stands in the
// way, no permission) instead of Foundation's error dump, and taken away
// again when the job that made them fails before writing anything into them.
import Foundation

/// The folder a command writes several files into (a Live pair, a moving collage, sample photos): made when
/// missing, a one-line `ShiyingError` when it cannot be, and taken away when the job fails before using it.
public enum OutputFolder {
    /// Runs `body` with the folder `path` in place: an existing folder is
    /// used as it is; a missing one is made (with its parents) and, should
    /// `body` throw while it is still empty, removed again.
    /// - Throws: `ShiyingError` (`.io`) naming the path and the reason when
    ///   the folder cannot be made; then whatever `body` throws.
    public static func using<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let made = try make(path)
        do {
            return try body()
        } catch {
            // the folders it made, leaf first, while they are empty
            var url = URL(fileURLWithPath: path)
            while let top = made, url.path.hasPrefix(top), rmdir(url.path) == 0, url.path != top {
                url = url.deletingLastPathComponent()
            }
            throw error
        }
    }

    /// Makes `path` a folder if it is not one yet; true when it made it.
    /// - Throws: `ShiyingError` (`.io`) naming the path and the reason.
    @discardableResult
    public static func prepare(_ path: String) throws -> Bool {
        try make(path) != nil
    }

    /// The topmost folder it made for `path` (absolute), nil when `path` was a folder already.
    private static func make(_ path: String) throws -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw ShiyingError(code: .io, message: "\(path): is a file, not a folder for the output", file: path)
            }
            return nil
        }
        if let blocker = fileInTheWay(of: path) {
            throw ShiyingError(code: .io, message: "\(path): cannot make the folder: \(blocker) is a file", file: path)
        }
        var top: String?
        guard mkdirs(URL(fileURLWithPath: path).path, top: &top) else {
            let reason = String(cString: strerror(errno))
            throw ShiyingError(code: .io, message: "\(path): cannot make the folder: \(reason)", file: path)
        }
        return top
    }

    /// The nearest existing ancestor of `path` when it is not a folder.
    private static func fileInTheWay(of path: String) -> String? {
        var url = URL(fileURLWithPath: path).deletingLastPathComponent()
        while url.path != "/" {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
                return isFolder.boolValue ? nil : url.path
            }
            url = url.deletingLastPathComponent()
        }
        return nil
    }

    /// mkdir -p, with errno left set on failure; `top` = the first folder it made.
    private static func mkdirs(_ path: String, top: inout String?) -> Bool {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if parent != path, !FileManager.default.fileExists(atPath: parent), !mkdirs(parent, top: &top) {
            return false
        }
        guard mkdir(path, 0o755) == 0 else { return errno == EEXIST }
        if top == nil { top = path }
        return true
    }
}
