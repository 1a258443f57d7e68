/** The label engine's public surface. */
export { layoutFor, renderLabel, type RenderedLabel } from './render.js';
export { CodeFitError, LabelFitError } from './layout.js';
export { MATRIX_SYMBOLOGIES, SymbolError } from './symbols.js';
export { CONTINUOUS_MAX_LENGTH_DOTS, findStock, getStock, paperDots, printsRed, STOCKS, STOCK_NAMES, type Colour, type Stock, type BrotherQlMedia } from './stock.js';
export {
  BUILT_IN_TEMPLATE_NAMES,
  builtInTemplate,
  sameDesignForEveryKind,
  STANDARD_DESIGNS,
  type LabelDesign,
  type LabelRecord,
  type Template,
} from './design.js';
export { fontIsolation, FontIsolationError } from './fonts.js';
export { findSheetProduct, sheetGeometry, SHEET_PRODUCTS, SHEET_PRODUCT_NAMES, type SheetProduct } from './sheets.js';
export { MAX_OFFSET_MM, renderCalibrationPdf, renderSheetPdf, sheetCellStock, SheetTimeoutError, type OffsetFrom, type SheetPdf } from './sheet-pdf.js';
export { poolRenderer, RenderUnavailableError, type RenderedBytes, type Renderer } from './render-pool.js';
export { engineVersion } from './engine-version.js';
export { bytesAsDigest, fingerprintKind, labelFingerprint } from './fingerprint.js';
export { encodePng1 } from './png.js';
export { DEFAULT_LOCALE, formatValue, isSupportedLocale, parsePlaceholders, type Placeholder } from './placeholders.js';
export { LogoError } from './logo.js';
export { LogoBusyError, logoBitmap, warmLogoProcess } from './logo-process.js';
export type { Bitmap, CodeSpec, TextSpec } from './design.js';
export { fitImageToStock, ImageError, type FittedImage } from './fit-image.js';
export { decodeBlackRedPng, decodeMonoPng, emptyBitmap, getDot, setDot, type MonoBitmap } from './mono-png.js';
export { elementArea, elementAreaMm, GridError, placeOnGrid, templateUses, type ElementGrid, type ElementSpec } from './elements.js';
