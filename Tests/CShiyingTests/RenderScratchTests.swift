// Grid rows kept from one render to the next (render/sy_render_scratch.h): a
// movie's frames rendered into its collage cell, or a transcode's, reuse one
// block instead of allocating and faulting in a new one per frame. The
// rendered bytes must be those of sy_renderer_render_rows, whatever the
// scratch held before (another frame, another renderer's shape, a band).
import CShiying
import CShiyingInternal
import Foundation
import Testing

@Suite("Render scratch (issue 17)")
struct RenderScratchTests {
    static func renderer(_ ctx: Context, _ src: RGBImage, _ width: Int, _ height: Int) throws -> OpaquePointer {
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        var r: OpaquePointer?
        var err = sy_error()
        guard sy_renderer_create(ctx.raw, &recipe, UInt32(src.width), UInt32(src.height), UInt32(width),
                                 UInt32(height), &r, &err) == SY_OK, let r else { throw CTestFailure(message(err)) }
        return r
    }

    @Test("frames through one scratch: cells of two shapes, bands, and a region too big to keep give sy_renderer_render_rows' bytes; the scratch frees to zero")
    func sameBytesAsAFreshBlock() throws {
        let ctx = try Context()
        let frames = (1...3).map { RGBImage.photo(width: 1400, height: 1050, seed: UInt32($0)) }
        // 420x316 and 300x226 keep their grid rows (well under 4 MiB); 1000x750 (4.5 MB of rows) does not.
        let shapes = [(420, 316), (300, 226), (1000, 750)]
        let renderers = try shapes.map { try Self.renderer(ctx, frames[0], $0.0, $0.1) }
        var scratch = sy__render_scratch()
        var held: [Int] = []
        for (f, frame) in frames.enumerated() {
            for (i, (w, h)) in shapes.enumerated() {
                let splits = f == 1 ? [h / 3, h / 2] : [] // bands: smaller regions after larger ones
                let fresh = try Render.bands(renderers[i], frame, width: w, height: h, splits: splits)
                let reused = try Render.bands(renderers[i], frame, width: w, height: h, splits: splits, scratch: &scratch)
                #expect(reused == fresh, "frame \(f), \(w)x\(h)\(splits.isEmpty ? "" : " in bands \(splits)")")
            }
            held.append(scratch.elements)
        }
        // Whole renders: the 420x316 cell's rows are the most kept, (420 * 3 + 4) x 316 elements; the
        // 1000x750 one (4.5 MB) was not kept. In bands, its last (375 rows, 2.3 MB) was.
        #expect(held == [(420 * 3 + 4) * 316, (1000 * 3 + 4) * 375, (1000 * 3 + 4) * 375], "scratch sizes \(held)")
        sy__render_scratch_free(&scratch)
        #expect(scratch.px == nil && scratch.elements == 0)
        renderers.forEach { sy_renderer_destroy($0) }
        #expect(ctx.stats.current_bytes == 0, "\(ctx.stats.current_bytes) engine bytes left")
    }
}
