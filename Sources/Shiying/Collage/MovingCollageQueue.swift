import Foundation

extension ExportRequestKey {
    /// A moving collage: its stills are the photos; the movies named beside
    /// them and every setting but where the result is written (folder, name,
    /// the process-memory probe) are the settings.
    public init(moving request: MovingCollageRequest) throws {
        var settings = request
        settings.inputs = request.inputs.map { MovingCollageRequest.Input(still: "", movie: $0.movie) }
        settings.directory = ""
        settings.name = ""
        settings.measureProcessPeak = false
        try self.init(photos: request.inputs.map(\.still), settings: settings)
    }
}

extension MovingCollage {
    /// SPEC C11: the one queue every moving-collage save of the process goes through.
    public static let queue = ExportQueue<ExportRequestKey, MovingCollageReport>()

    /// SPEC C11: `export` through `queue` — one save at a time; the same photos
    /// with the same settings asked again while that save runs or waits join it
    /// and get its report (the second caller's folder is not written).
    public static func exportOneAtATime(_ request: MovingCollageRequest,
                                        progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws
        -> MovingCollageReport {
        let key = try ExportRequestKey(moving: request)
        return try await queue.run(key) { try await export(request, progress: progress) }
    }
}
