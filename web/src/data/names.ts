// Collection and function names are shared with the backend through one JSON
// file, so a rename on either side cannot silently desynchronise them.
import shared from '../../../common/collections.json';

export const COLLECTIONS = shared.collections;
export const FUNCTIONS = shared.functions;
export const REGION = shared.region;
