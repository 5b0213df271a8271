import { afterEach } from 'vitest'
import { cleanup } from '@testing-library/react'

// Testing Library unmounts between tests only by itself when test globals are on; they are not.
afterEach(() => cleanup())
