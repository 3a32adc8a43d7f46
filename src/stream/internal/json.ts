/**
 * Whether a text is one whole JSON value (of any kind).
 */
export const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
