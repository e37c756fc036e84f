import Foundation
import Testing

/// The engine's layout rules (README "Architecture"), read from the source tree:
/// a folder includes only folders below it, each system library is included
/// from one folder, and the public headers are what the Swift facade calls.
@Suite("Engine layout: layers, system libraries, public headers (issue 14)")
struct LayerTests {
    /// Lowest first. A folder may include its own headers, the public headers of
    /// its layer and those below, and the folders before it in this list.
    static let order = [
        "base", "exif", "jpeg", "png", "hevc", "h264", "color",  // core: foundation, Exif, codecs, colour
        "bmff", "heif", "mov", "audio", "still", "render", "gainmap",  // media: containers, still, rendering
        "collage", "edit", "video", "organize", "live", "motion", "convert",  // pipelines
    ]
    static let layers = ["core", "media", "pipelines"]
    /// System library headers and the one engine folder allowed to include each.
    static let systemHeaders = [
        "jpeglib.h": "jpeg", "jerror.h": "jpeg", "turbojpeg.h": "jpeg", "zlib.h": "png",
        "x265.h": "hevc", "libavcodec/avcodec.h": "hevc", "libavutil/frame.h": "hevc", "libavutil/log.h": "hevc",
        "libavutil/mem.h": "hevc", "libavutil/pixdesc.h": "hevc", "libavutil/channel_layout.h": "hevc",
        "libavutil/samplefmt.h": "hevc", "libavutil/opt.h": "hevc", "libheif/heif.h": "heif",
        "lcms2.h": "color", "lcms2_plugin.h": "color",
    ]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("CSources")

    struct Source {
        let path: String  // relative to CSources, e.g. "media/heif/heif_file.c"
        let layer: String
        let folder: String  // "heif", or "include" for a public header
        let includes: [(quoted: Bool, name: String)]
    }

    static func sources(under layers: [String]) throws -> [Source] {
        var out: [Source] = []
        for layer in layers {
            let base = root.appendingPathComponent(layer)
            let walker = FileManager.default.enumerator(atPath: base.path)
            while let rel = walker?.nextObject() as? String {
                guard rel.hasSuffix(".c") || rel.hasSuffix(".h") else { continue }
                let text = try String(contentsOf: base.appendingPathComponent(rel), encoding: .utf8)
                let includes = text.split(separator: "\n").compactMap { line -> (Bool, String)? in
                    let t = line.trimmingCharacters(in: .whitespaces)
                    guard t.hasPrefix("#include") else { return nil }
                    let rest = t.dropFirst("#include".count).trimmingCharacters(in: .whitespaces)
                    guard let open = rest.first, open == "\"" || open == "<" else { return nil }
                    let close: Character = open == "\"" ? "\"" : ">"
                    let name = rest.dropFirst().prefix { $0 != close }
                    return (open == "\"", String(name))
                }
                out.append(Source(path: layer + "/" + rel, layer: layer,
                                  folder: String(rel.split(separator: "/").first ?? ""),
                                  includes: includes.map { (quoted: $0.0, name: $0.1) }))
            }
        }
        return out
    }

    /// Public headers by file name -> the layer whose include/ holds them.
    static func publicHeaders() -> [String: String] {
        var out: [String: String] = [:]
        for layer in layers + ["fixtures"] {
            let dir = root.appendingPathComponent(layer).appendingPathComponent("include")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where name.hasSuffix(".h") {
                out[name] = layer
            }
        }
        return out
    }

    @Test("each folder includes only its own headers and folders below it, by folder name")
    func foldersIncludeOnlyBelow() throws {
        let publics = Self.publicHeaders()
        var violations: [String] = []
        for source in try Self.sources(under: Self.layers) {
            let rank = Self.order.firstIndex(of: source.folder)
            #expect(rank != nil || source.folder == "include", "\(source.path): folder not in the layer order")
            let layerRank = Self.layers.firstIndex(of: source.layer)!
            for inc in source.includes where inc.quoted {
                if inc.name.contains("..") { violations.append("\(source.path): relative include \"\(inc.name)\""); continue }
                let parts = inc.name.split(separator: "/")
                if parts.count == 1 {
                    guard let owner = publics[inc.name] else {
                        violations.append("\(source.path): \"\(inc.name)\" is neither public nor named by folder"); continue
                    }
                    let ownerRank = Self.layers.firstIndex(of: owner) ?? Int.max
                    if ownerRank > layerRank { violations.append("\(source.path): public header of \(owner) above \(source.layer)") }
                    continue
                }
                let folder = String(parts[0])
                guard let target = Self.order.firstIndex(of: folder) else {
                    violations.append("\(source.path): unknown folder in \"\(inc.name)\""); continue
                }
                if folder == source.folder { continue }
                if source.folder == "include" {
                    violations.append("\(source.path): a public header includes the internal \"\(inc.name)\"")
                } else if let rank, target > rank {
                    violations.append("\(source.path) includes \"\(inc.name)\" from above (\(source.folder) < \(folder))")
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.count) upward or unnamed includes:\n\(violations.joined(separator: "\n"))")
    }

    @Test("each system library header is included from exactly one engine folder")
    func systemLibrariesHaveOneHome() throws {
        var wrong: [String] = []
        for source in try Self.sources(under: Self.layers + ["fixtures"]) {
            for inc in source.includes where !inc.quoted {
                if let home = Self.systemHeaders[inc.name], source.folder != home {
                    wrong.append("\(source.path) includes <\(inc.name)> (home: \(home)/)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
    }

    /// Every public header declares at least one function the Swift facade or
    /// CLI calls; engine internals reach tests through CShiyingInternal instead.
    @Test("every public header declares a function the Swift sources call")
    func publicHeadersAreCalledBySwift() throws {
        let sources = Self.root.deletingLastPathComponent().appendingPathComponent("Sources")
        var swift = ""
        let walker = FileManager.default.enumerator(atPath: sources.path)
        while let rel = walker?.nextObject() as? String {
            guard rel.hasSuffix(".swift") else { continue }
            swift += try String(contentsOf: sources.appendingPathComponent(rel), encoding: .utf8)
        }
        let function = try NSRegularExpression(pattern: "\\b(sy_[a-z0-9_]+)\\s*\\(")
        for (name, layer) in Self.publicHeaders() {
            let path = Self.root.appendingPathComponent(layer).appendingPathComponent("include/" + name)
            let text = try String(contentsOf: path, encoding: .utf8)
            let names = Set(function.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range(at: 1), in: text).map { String(text[$0]) }
            })
            #expect(names.contains { swift.contains($0 + "(") }, "\(layer)/include/\(name): no function called from Sources/")
        }
    }
}
