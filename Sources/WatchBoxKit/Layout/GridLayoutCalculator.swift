/// Lays cameras out in a grid (the spec's GridLayoutCalculator): how many columns for how many
/// cameras on how wide a screen, and each cell's frame in a viewport.
public enum GridLayoutCalculator {
    /// A cell's rectangle in points (or pixels), origin top left.
    public struct Frame: Sendable, Equatable, Codable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
    }

    /// The narrowest a cell may get before the grid gains a row instead of a column.
    public static let minimumCellWidth = 160.0

    /// Columns for `count` cameras: 1 → 1, 2–4 → 2, 5–9 → 3, 10–16 → 4, then the smallest square
    /// that holds them — but never more than fit at ``minimumCellWidth`` in `width`, and on a
    /// portrait screen one column fewer (cells stay wide enough to see). At least 1.
    public static func columns(count: Int, width: Double, height: Double? = nil, spacing: Double = 8) -> Int {
        guard count > 0 else { return 1 }
        var columns = 1
        while columns * columns < count { columns += 1 }
        if let height, height > width, columns > 1 { columns -= 1 }
        let fitting = max(1, Int(((width + spacing) / (minimumCellWidth + spacing)).rounded(.down)))
        return max(1, min(columns, fitting, count))
    }

    /// Frames for `count` cells with the given aspect ratio (width / height), in grid order, packed
    /// from the top left with `spacing` between cells and `padding` around the grid. Cells are as
    /// wide as the columns allow; if the rows would overflow `height`, cells shrink to fit and the
    /// grid is centred horizontally.
    public static func frames(
        count: Int, width: Double, height: Double, aspectRatio: Double = 16.0 / 9.0, spacing: Double = 8,
        padding: Double = 8
    ) -> [Frame] {
        guard count > 0, width > 2 * padding, height > 2 * padding, aspectRatio > 0 else { return [] }
        let columns = Self.columns(count: count, width: width - 2 * padding, height: height, spacing: spacing)
        let rows = (count + columns - 1) / columns
        let innerWidth = width - 2 * padding
        let innerHeight = height - 2 * padding
        var cellWidth = (innerWidth - spacing * Double(columns - 1)) / Double(columns)
        var cellHeight = cellWidth / aspectRatio
        let neededHeight = cellHeight * Double(rows) + spacing * Double(rows - 1)
        if neededHeight > innerHeight {
            cellHeight = max(1, (innerHeight - spacing * Double(rows - 1)) / Double(rows))
            cellWidth = cellHeight * aspectRatio
        }
        let gridWidth = cellWidth * Double(columns) + spacing * Double(columns - 1)
        let left = padding + max(0, (innerWidth - gridWidth) / 2)
        return (0..<count).map { index in
            let row = index / columns
            let column = index % columns
            return Frame(
                x: left + Double(column) * (cellWidth + spacing), y: padding + Double(row) * (cellHeight + spacing),
                width: cellWidth, height: cellHeight)
        }
    }
}
