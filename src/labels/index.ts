/** The label-rendering engine's public surface. */
export { renderLabel, type RenderedLabel } from './render.js';
export { LabelFitError } from './layout.js';
export {
  PRESET_NAMES,
  CONTINUOUS_MAX_HEIGHT_PX,
  getPreset,
  isPresetName,
  type Preset,
  type PresetName,
} from './presets.js';
export { fontIsolation } from './fonts.js';
export type { LabelContent } from './types.js';
