/**
 * Moved down to `api/container-path.ts` so the API server (which may not import runtime/) maps
 * its config's paths the same way; re-exported here for the components that import it from runtime/.
 */
export { containerPath, ROOTFS_ENV } from '../api/container-path.ts';
